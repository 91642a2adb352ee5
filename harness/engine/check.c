/* One case: fill the buffers from the random pool, run the variant under
 * fault protection, then name the first thing that differs. The classes are
 * tried from the most to the least severe, so each case gets exactly one.
 *
 * The expected bytes: every buffer is cut from the read-only pool at a
 * known offset, so the red zones must still hold those pool bytes, and the
 * result of a memcpy, mempcpy, memmove (any overlap), memset, copy_page or
 * clear_page is known without running anything: dst is compared with the
 * pool (or the value) directly. Only a case that does not match runs the
 * byte-loop reference (the oracle of record) on a shadow copy, and a
 * verdict is always drawn from its result.
 *
 * A case that passes is seen by the quick judge (plainly_ok), compares and
 * nothing else; any other goes to mg_judge, which names what it broke.
 * MEMGATE_CROSS_CHECK=1 runs both oracles, and both judges, on every case
 * and makes any disagreement an error (tests/run.d/oracle.sh does, over the
 * quick sweep of each operation). */
#include "check.h"
#include "cpu.h"
#include "call.h"
#include "huge.h"
#include "memcheck.h"
#include "outcome.h"
#include "placements.h"
#include "rng.h"
#include "sandbox.h"
#include "situation.h"
#include "usercopy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one run of a case produced, and where it lives. */
struct run {
	const struct mg_case *c;
	const struct mg_sandbox *sb;
	struct mg_layout at;
	const unsigned char *win_want; /* the pool bytes the window was filled from */
	unsigned char *shadow_dst;     /* the reference's result, once it ran */
	/* The pool bytes a separate source was filled from: what it must still
	 * hold after the call, and what the reference copies. Not the source
	 * view, which the variant can reach. */
	const unsigned char *src_want;
	struct mg_outcome call;
	const struct mg_situation *situation; /* the case's, or NULL */
	struct mg_memcheck memcheck; /* used only under valgrind */
};

/* The per-case helpers are inlined into the check whatever their size: at
 * 1 to 32 bytes the calls between them cost as much as the work (issue 15,
 * docs/benchmarks.md). */
#define HOT_INLINE inline __attribute__((always_inline))

/* Short fills come from the pool's first 64 KiB, which stays in cache: a
 * random spot in all 16 MiB would cost more cache misses than the case. */
#define HOT_POOL_BYTES ((size_t)64 << 10)

/* Where in the pool n bytes come from, for a mixed key. Short fills stay
 * in the hot part (the pool, when it is shorter). */
static inline const unsigned char *pool_at(const struct mg_sandbox *sb, size_t n, uint64_t mixed)
{
	size_t span = n + HOT_POOL_BYTES < sb->pool_size ? n + HOT_POOL_BYTES : sb->pool_size;

	return sb->pool + mg_below(mixed, span - n + 1);
}

/* The patterns of enum mg_fill, MG_PATTERN_BYTES each (made once), and
 * the window of an MG_FILL_EQUAL case (made per case). */
static unsigned char *patterns[MG_FILL_EQUAL];
static unsigned char equal_window[MG_PATTERN_BYTES];

static const unsigned char *pattern(enum mg_fill fill)
{
	static const unsigned char snan[8] = {0x01, 0, 0, 0, 0, 0, 0xf0, 0x7f};

	if (!patterns[fill]) {
		unsigned char *p = malloc(MG_PATTERN_BYTES);
		if (!p)
			return NULL;
		for (size_t i = 0; i < MG_PATTERN_BYTES; i++)
			p[i] = fill == MG_FILL_ZERO ? 0 : fill == MG_FILL_ONES ? 0xff : snan[i % 8];
		patterns[fill] = p;
	}
	return patterns[fill];
}

/* The destination already holds what the call will leave there: its
 * source's bytes, c, or zeros. */
static void fill_equal(struct run *r)
{
	const struct mg_case *c = r->c;
	unsigned char *dst = equal_window + (r->at.dst - r->at.win);

	memcpy(equal_window, r->win_want, r->at.win_len);
	if (r->src_want)
		memcpy(dst, r->src_want, c->len);
	else
		memset(dst, c->variant->op == MG_MEMSET ? (unsigned char)c->value : 0, c->len);
	r->win_want = equal_window;
}

/* A patterned case (enum mg_fill): its source, or its whole window when
 * there is no separate source, comes from the pattern. */
static __attribute__((cold, noinline)) void fill_patterned(struct run *r, enum mg_fill fill)
{
	const unsigned char *p;

	if (r->at.win_len > MG_PATTERN_BYTES)
		return;
	if (fill == MG_FILL_EQUAL) {
		if (!r->c->overlap)
			fill_equal(r);
		return;
	}
	if (!(p = pattern(fill)))
		return;
	if (r->src_want)
		r->src_want = p;
	else
		r->win_want = p;
}

/* Returns false if the case's spot cannot be had here. */
static HOT_INLINE bool set_up(struct run *r)
{
	const struct mg_case *c = r->c;
	/* Mixed first: the multiplies' latency then hides behind the placement
	 * rather than holding up each copy in turn. */
	uint64_t src_key = mg_mix64(c->seed * 2 + 1), win_key = mg_mix64(c->seed * 2);

	if (!mg_spot_is_remote(c->spot))
		mg_sandbox_place_fast(r->sb, c, &r->at);
	else if (!mg_placements_place(c, &r->at))
		return false;
	r->src_want = NULL;
	/* Zero length: the pointers are in guard pages and there is nothing to
	 * fill. (Even a zero-byte library memcpy on a PROT_NONE page can cost
	 * hundreds of cycles, in masked-access assists.) */
	if (c->len == 0)
		return true;
	r->win_want = pool_at(r->sb, r->at.win_len, win_key);
	if (mg_op_has_src(c->variant->op) && !c->overlap)
		r->src_want = pool_at(r->sb, c->len, src_key);
	if (__builtin_expect(mg_case_fill(c) != MG_FILL_POOL, 0))
		fill_patterned(r, mg_case_fill(c));
	if (r->src_want)
		memcpy(r->at.src_rw, r->src_want, c->len);
	memcpy(r->at.win, r->win_want, r->at.win_len);
	r->shadow_dst = NULL;
	return true;
}

void mg_check_layout(const struct mg_case *c, struct mg_layout *out)
{
	struct run r;

	r.c = c;
	r.sb = mg_sandbox_get();
	if (!set_up(&r))
		memset(&r.at, 0, sizeof r.at);
	*out = r.at;
}

/* The oracle of record: the byte loop on a shadow copy of the window, half
 * a page off the window's own page offset (a copy at the same offset would
 * stall on 4 KiB aliasing between its loads and stores). Only the bytes it
 * reads are copied: memmove's region when overlapping, else none (it
 * writes every byte of dst). */
static void run_reference(struct run *r)
{
	const struct mg_case *c = r->c;
	unsigned char *shadow_win =
		r->sb->shadow + (((uintptr_t)r->at.win + MG_PAGE / 2) & (MG_PAGE - 1));
	const unsigned char *src = r->src_want;

	r->shadow_dst = shadow_win + (r->at.dst - r->at.win);
	if (c->overlap) {
		memcpy(shadow_win, r->win_want, r->at.win_len);
		src = shadow_win + (r->at.src - r->at.win);
	}
	mg_call_reference(c->variant->op, r->shadow_dst, src, c->value, c->len);
}

/* Buffers here often end at a guard page. The C library's memcmp reads short
 * tails with masked vector loads, and a masked load that reaches into an
 * unmapped page, even for bytes it then ignores, takes a microcode assist
 * that costs more than the whole case. Short compares use plain loads. */
#define SHORT_COMPARE 256

/* Two 64-bit words, compared 16 bytes at a time: GCC's and clang's generic
 * vectors, which become SSE2 or NEON registers (or pairs of words where the
 * target has none). -O2 does not vectorize the plain word loop. */
typedef uint64_t bytes16 __attribute__((vector_size(16)));

static uint64_t load8(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

static uint32_t load4(const unsigned char *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return x;
}

/* Bits that differ between a[0..n) and b[0..n), or-ed together: 0 when
 * they are equal. No branch per piece (the usual case is "all equal"), and
 * the last piece is loaded again ending at the last byte, overlapping the
 * one before: no byte loop for the tail, and no load reaches past a + n or
 * b + n (buffers here end at guard pages). Up to SHORT_COMPARE bytes. */
static HOT_INLINE uint64_t differing_bits(const unsigned char *a, const unsigned char *b, size_t n)
{
	if (n >= 16) {
		bytes16 x, y, u, v, differ = {0, 0};
		size_t i = 0;
		/* 32 bytes a turn: a red zone is 128 bytes and more. */
		for (; i + 32 <= n; i += 32) {
			memcpy(&x, a + i, 16);
			memcpy(&y, b + i, 16);
			memcpy(&u, a + i + 16, 16);
			memcpy(&v, b + i + 16, 16);
			differ |= (x ^ y) | (u ^ v);
		}
		if (i + 16 <= n) {
			memcpy(&x, a + i, 16);
			memcpy(&y, b + i, 16);
			differ |= x ^ y;
		}
		memcpy(&x, a + n - 16, 16);
		memcpy(&y, b + n - 16, 16);
		differ |= x ^ y;
		return differ[0] | differ[1];
	}
	if (n >= 8)
		return (load8(a) ^ load8(b)) | (load8(a + n - 8) ^ load8(b + n - 8));
	if (n >= 4)
		return (load4(a) ^ load4(b)) | (load4(a + n - 4) ^ load4(b + n - 4));
	unsigned differ = 0;
	for (size_t i = 0; i < n; i++)
		differ |= (unsigned)(a[i] ^ b[i]);
	return differ;
}

static HOT_INLINE int equal_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
	if (n > SHORT_COMPARE)
		return memcmp(a, b, n) == 0;
	return differing_bits(a, b, n) == 0;
}

/* Offsets of the first and the last byte that differ, or -1. */
static ptrdiff_t first_diff(const unsigned char *got, const unsigned char *want, size_t n)
{
	if (equal_bytes(got, want, n))
		return -1;
	for (size_t i = 0;; i++)
		if (got[i] != want[i])
			return (ptrdiff_t)i;
}

static ptrdiff_t last_diff(const unsigned char *got, const unsigned char *want, size_t n)
{
	if (equal_bytes(got, want, n))
		return -1;
	for (size_t i = n; i > 0; i--)
		if (got[i - 1] != want[i - 1])
			return (ptrdiff_t)(i - 1);
	return -1;
}

/* A red-zone byte the variant changed: where, and from what to what. */
static void red_zone_write(const struct run *r, const unsigned char *p, struct mg_verdict *out)
{
	const unsigned char *dst = r->at.dst;
	unsigned want = r->win_want[p - r->at.win];

	mg_verdict_start(out, MG_OOB_WRITE);
	out->has |= MG_HAS_ACCESS;
	out->access = MG_ACCESS_WRITE;
	mg_verdict_byte(out, p - dst, *p, want);
	mg_verdict_locate(out, MG_BUFFER_DST, dst, r->c->len, p);
	mg_verdict_say(out, ": changed 0x%02x -> 0x%02x", want, *p);
}

/* Stray writes near the destination that did not reach a guard page. */
static int check_red_zones(const struct run *r, struct mg_verdict *out)
{
	const unsigned char *dst = r->at.dst, *want = r->win_want + (dst - r->at.win);
	size_t before = (size_t)(dst - r->at.win);
	size_t after = r->at.win_len - before - r->c->len;
	ptrdiff_t i = first_diff(dst - before, want - before, before);

	if (i >= 0) {
		red_zone_write(r, dst - before + i, out);
		return 1;
	}
	i = last_diff(dst + r->c->len, want + r->c->len, after);
	if (i >= 0) {
		red_zone_write(r, dst + r->c->len + i, out);
		return 1;
	}
	return 0;
}

static HOT_INLINE int red_zones_intact(const struct run *r)
{
	const unsigned char *dst = r->at.dst, *want = r->win_want + (dst - r->at.win);
	size_t before = (size_t)(dst - r->at.win);
	size_t after = r->at.win_len - before - r->c->len;

	/* Long sides only around an overlapping move's far buffer. */
	if (before > SHORT_COMPARE || after > SHORT_COMPARE)
		return equal_bytes(dst - before, want - before, before) &&
		       equal_bytes(dst + r->c->len, want + r->c->len, after);
	return (differing_bits(dst - before, want - before, before) |
		differing_bits(dst + r->c->len, want + r->c->len, after)) == 0;
}

static int hex_run(char *out, size_t size, const unsigned char *p, size_t n)
{
	int used = 0;
	for (size_t i = 0; i < n && (size_t)used < size; i++)
		used += snprintf(out + used, size - (size_t)used, "%s%02x", i ? " " : "", p[i]);
	return used;
}

static int check_result(const struct run *r, struct mg_verdict *out)
{
	const unsigned char *got = r->at.dst, *want = r->shadow_dst;
	size_t len = r->c->len, wrong = 0;
	ptrdiff_t i = first_diff(got, want, len);
	char got_hex[64], want_hex[64];

	if (i < 0)
		return 0;
	for (size_t k = (size_t)i; k < len; k++)
		wrong += got[k] != want[k];
	size_t show = len - (size_t)i < 8 ? len - (size_t)i : 8;
	hex_run(got_hex, sizeof got_hex, got + i, show);
	hex_run(want_hex, sizeof want_hex, want + i, show);
	mg_verdict_start(out, MG_WRONG_RESULT);
	mg_verdict_byte(out, i, got[i], want[i]);
	memcpy(out->got_run, got + i, show);
	out->got_run_len = (unsigned)show;
	mg_verdict_say(out,
		       "dst[%lld] got 0x%02x want 0x%02x (%zu of %zu bytes wrong); from dst[%lld] "
		       "got %s want %s",
		       out->index, out->got, out->want, wrong, len, out->index, got_hex, want_hex);
	return 1;
}

/* A write to the read-only source view faults (src-modified), and the
 * sealed memfd behind it keeps mprotect() from making it writable. Where it
 * could not be sealed, a variant that made its view writable shows here:
 * the source no longer holds the pool bytes it was filled from. Same class,
 * and the same precedence as the fault. (Not done when sealed: it measured
 * 5-10% of the memcpy sweep.) At the remote spots (placements.c) the source
 * is plain writable memory, so there it is always compared with the pool. */
static int source_of(void *ctx, struct mg_verdict *out)
{
	const struct run *r = ctx;
	ptrdiff_t i;

	if (!r->src_want || (r->sb->src_sealed && !mg_spot_is_remote(r->c->spot)))
		return 0;
	i = first_diff(r->at.src, r->src_want, r->c->len);
	if (i < 0)
		return 0;
	mg_verdict_start(out, MG_SRC_MODIFIED);
	out->has |= MG_HAS_WHERE | MG_HAS_ACCESS;
	out->buffer = MG_BUFFER_SRC;
	out->side = MG_SIDE_INSIDE;
	out->distance = 0;
	out->offset = i;
	out->access = MG_ACCESS_WRITE;
	mg_verdict_say(out,
		       "wrote src+%td (len %zu): changed 0x%02x -> 0x%02x; the source is read-only "
		       "during the call",
		       i, r->c->len, r->src_want[i], r->at.src[i]);
	return 1;
}

/* The bytes: red zones (against the pool), then dst. */
static int red_zones_of(void *ctx, struct mg_verdict *out)
{
	struct run *r = ctx;

	return r->c->len != 0 && check_red_zones(r, out);
}

/* Whether dst holds what the operation must leave there, from the pool or
 * the value alone (-1: an operation it does not know). */
static HOT_INLINE int pool_says_equal(const struct run *r)
{
	const struct mg_case *c = r->c;
	const unsigned char *dst = r->at.dst;

	switch (c->variant->op) {
	case MG_MEMCPY:
	case MG_MEMPCPY:
	case MG_MEMMOVE:
		if (c->overlap)
			return equal_bytes(dst, r->win_want + (r->at.src - r->at.win), c->len);
		return equal_bytes(dst, r->src_want, c->len);
	case MG_COPY_PAGE: return equal_bytes(dst, r->src_want, c->len);
	case MG_MEMSET:
		/* All bytes equal to the first, and the first is c. */
		return dst[0] == (unsigned char)c->value && equal_bytes(dst, dst + 1, c->len - 1);
	case MG_CLEAR_PAGE: return dst[0] == 0 && equal_bytes(dst, dst + 1, c->len - 1);
	default: return -1;
	}
}

static int cross_check_wanted(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("MEMGATE_CROSS_CHECK") != NULL;
	return on;
}

/* Both oracles on one case: they must agree, or nothing is judged. */
static int cross_check(struct run *r, struct mg_verdict *out)
{
	int pool = pool_says_equal(r), found;

	run_reference(r);
	found = check_result(r, out);
	if (pool >= 0 && pool == found) {
		char what[512];
		mg_case_describe(r->c, what, sizeof what);
		mg_verdict_set(out, MG_ERROR,
			       "the pool oracle says %s and the reference says %s: %s",
			       pool ? "equal" : "different", found ? "different" : "equal", what);
		return 1;
	}
	return found;
}

static int bytes_of(void *ctx, struct mg_verdict *out)
{
	struct run *r = ctx;

	if (r->c->len == 0)
		return 0;
	if (cross_check_wanted())
		return cross_check(r, out);
	if (pool_says_equal(r) == 1)
		return 0;
	run_reference(r);
	return check_result(r, out);
}

/* memcheck's finding comes after the byte checks, which name a write that
 * changed a red-zone byte as the engine always does. */
static int memory_of(void *ctx, struct mg_verdict *out)
{
	struct run *r = ctx;

	return mg_memcheck_blame(&r->memcheck, &r->call, out);
}

/* For tests/run.d/oracle.sh only: MEMGATE_TEST_QUICK_SAYS_OK=1 makes the
 * quick judge pass every call that returned, which the cross-check must
 * then catch on a wrong routine. */
static int quick_judge_lies(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("MEMGATE_TEST_QUICK_SAYS_OK") != NULL;
	return on;
}

/* The red zones and dst hold what they must. */
static HOT_INLINE int bytes_as_expected(const struct run *r)
{
	return red_zones_intact(r) && pool_says_equal(r) == 1;
}

/* Every rule the judge applies to a call that returned, by compares alone. */
static int meets_every_rule(const struct run *r, struct mg_verdict *out)
{
	const struct mg_case *c = r->c;

	if (r->src_want && (!r->sb->src_sealed || mg_spot_is_remote(c->spot)))
		return 0; /* the source compare: left to the judge */
	if (c->len && !bytes_as_expected(r))
		return 0;
	return mg_outcome_returned_right(&r->call) && !mg_abi_violation(&r->call.abi, mg_outcome_resumed(&r->call), out);
}

/* Most cases pass, and this sees it with compares alone: no check called
 * through a pointer, no message built, no call that is not needed (at 1 to
 * 32 bytes that plumbing cost as much as the checks). It vouches only for
 * what mg_judge would call ok, and leaves everything else, and what it does
 * not look at (a fault, memcheck, an unsealed or remote source), to
 * mg_judge, which names it. MEMGATE_CROSS_CHECK=1 runs mg_judge after it
 * on every case, and a disagreement is an error. */
static int plainly_ok(const struct run *r, struct mg_verdict *out)
{
	if (r->call.faulted || mg_memcheck_on || r->situation)
		return 0;
	if (!quick_judge_lies() && !meets_every_rule(r, out))
		return 0;
	out->warnings = mg_outcome_warnings(&r->call);
	out->unjudged = mg_outcome_unjudged(&r->call);
	mg_verdict_start(out, MG_OK);
	return 1;
}

static void judges_disagree(const struct mg_case *c, struct mg_verdict *out)
{
	char what[512];
	char full[MG_DETAIL_MAX];

	mg_case_describe(c, what, sizeof what);
	snprintf(full, sizeof full, "%s", out->detail);
	mg_verdict_set(out, MG_ERROR, "the quick judge says ok and mg_judge says %s (%s): %s",
		       mg_class_name(out->cls), full, what);
}

/* The full judge, which names what a case broke (after the quick one,
 * which vouched for it when `quick`: then they must agree). */
static void judge(struct run *r, int quick, struct mg_verdict *out)
{
	const struct mg_judge_checks checks = {source_of, red_zones_of, bytes_of, memory_of, r};
	const void *a = r->call.fault.addr;

	mg_judge(&r->call,
		 r->call.faulted && (mg_in_src_arena(r->sb, a) || mg_in_dst_arena(r->sb, a) ||
				     mg_placements_owns(a)),
		 &checks, out);
	if (quick && out->cls != MG_OK)
		judges_disagree(r->c, out);
}

static void check_once(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	struct run r; /* not zeroed: each field is set before it is read, and
		       * clearing 350 bytes per case shows in the benchmark */
	int quick;

	r.c = c;
	r.sb = mg_sandbox_get();
	r.call.c = c;
	r.situation = mg_situation_of(c);
	if (!set_up(&r)) {
		char why[160];
		mg_placements_possible(c->spot, why, sizeof why);
		mg_verdict_set(out, MG_ERROR, "spot %s cannot run here: %s", mg_spot_name(c->spot),
			       why);
		return;
	}
	mg_memcheck_arm(&r.memcheck, r.sb, c, &r.at, clean_int);
	/* mg_outcome_call, with sigsetjmp in this frame: one call fewer. */
	mg_outcome_arm(&r.call, r.at.dst, r.at.src);
	if (sigsetjmp(mg_fault_jmp, 0))
		mg_outcome_faulted(&r.call);
	else if (__builtin_expect(r.situation != NULL, 0))
		r.situation->run(&r.call, &r.at, clean_int);
	else
		mg_outcome_run(&r.call, clean_int);
	mg_memcheck_disarm(&r.memcheck);
	quick = plainly_ok(&r, out);
	if (!quick || cross_check_wanted())
		judge(&r, quick, out);
}

/* Lengths past the sandbox go to the huge-length check, the user copies to
 * their own (usercopy.h). */
static void check_any(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	if (mg_case_sets_vl(c) && mg_cpu_use_vl(c->vl) != 0) {
		mg_verdict_set(out, MG_ERROR, "could not set the vector length to %u bytes",
			       c->vl ? c->vl : mg_cpu_default_vl());
		return;
	}
	if (mg_op_is_user(c->variant->op))
		mg_usercopy_check(c, clean_int, out);
	else if (mg_case_is_huge(c))
		mg_huge_check(c, clean_int, out);
	else
		check_once(c, clean_int, out);
}

/* The blames below vary one thing and run the case again: a pass then
 * says the thing varied made it fail only if the failure repeats, which in
 * some situations it need not (threads' calls race); the situation's own
 * blame then names it. */
static int repeatable(const struct mg_case *c)
{
	const struct mg_situation *s = mg_situation_of(c);

	return !s || s->repeatable;
}

/* memset's c arrives with garbage in the upper half of its register, which
 * the ABI leaves undefined. If a failing case passes once that half is clean,
 * the variant read it: name that, rather than the symptom. */
static void blame_upper_int(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_verdict clean;

	if (c->variant->op != MG_MEMSET || out->cls == MG_OK || out->cls == MG_TIMEOUT ||
	    !repeatable(c))
		return;
	check_any(c, 1, &clean);
	if (clean.cls != MG_OK)
		return;
	mg_verdict_abi(out, "upper-int", 0, 0, 0, 0,
		       "reads the upper 32 bits of its int argument c, which the ABI leaves "
		       "undefined (with 0x%08llx there it fails; with them clear it passes)",
		       (unsigned long long)(MG_ABI_INT_GARBAGE >> 32));
}

static void init_once(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	mg_fault_init();
	mg_abi_init();
}

void mg_check_init(void)
{
	init_once();
	mg_sandbox_get();
}

/* The sampled calls enter with every arithmetic flag set, which the ABIs
 * leave undefined at entry (psABI-64 3.2.1, AAPCS64 6.1.1). If a failing
 * one passes with them clear, the routine read them: name that, rather
 * than the symptom. */
static void blame_entry_flags(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_verdict clear;
	char symptom[MG_DETAIL_MAX + 32];

	if (out->cls == MG_OK || out->cls == MG_TIMEOUT || out->cls == MG_ERROR ||
	    out->cls == MG_ABI_VIOLATION || !mg_outcome_wants_upper_check(c) || !repeatable(c))
		return;
	mg_outcome_entry_flags = 0;
	check_any(c, 0, &clear);
	mg_outcome_entry_flags = 1;
	if (clear.cls != MG_OK)
		return;
	snprintf(symptom, sizeof symptom, "%s: %s", mg_class_name(out->cls), out->detail);
	mg_verdict_abi(out, "entry-flags", 0, 0, 0, 0,
		       "depends on the arithmetic flags at entry, which the ABI leaves undefined "
		       "(with every one set it fails, %.200s; with them clear it passes)",
		       symptom);
}

/* A case may enter with a floating-point environment other than the
 * default, as a caller may run with one (C11 7.6; psABI-64 3.2.1: MXCSR's
 * and the x87 control word's settings are the caller's, their flags
 * caller-saved). If a case that fails so passes in the default one, the
 * routine depends on it: name that, with both. */
static void blame_fpenv(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_case plain = *c;
	struct mg_verdict again;
	char symptom[MG_DETAIL_MAX + 32], regs[96];

	if (!c->fpenv || out->cls == MG_OK || out->cls == MG_TIMEOUT || out->cls == MG_ERROR ||
	    out->cls == MG_ABI_VIOLATION || !repeatable(c))
		return;
	plain.fpenv = 0;
	check_any(&plain, 0, &again);
	if (again.cls != MG_OK)
		return;
	snprintf(symptom, sizeof symptom, "%s: %s", mg_class_name(out->cls), out->detail);
	mg_abi_fpenv_describe(c->fpenv, regs, sizeof regs);
	mg_verdict_abi(out, "entry-fpenv", 0, 0, 0, 0,
		       "depends on the floating-point environment at entry, which is the "
		       "caller's (with %s (%s) it fails, %.200s; with the default it passes)",
		       mg_abi_fpenv_name(c->fpenv), regs, symptom);
}

/* The ABI promises the stack pointer at entry only so much alignment
 * (docs/contract.md, X9, XK4, I5, IK2, A11): a case that fails at its
 * stack offset and passes at another fails for the alignment the routine
 * assumes. Say so, naming both. Only a call made alone (the situations
 * have blames of their own, and a stepped case costs a thousand plain
 * ones). */
static void blame_stack_offset(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_case other = *c;
	struct mg_verdict again;
	unsigned step = mg_stack_step(c->variant);

	if (out->cls == MG_OK || out->cls == MG_ERROR || out->cls == MG_TIMEOUT ||
	    mg_situation_of(c) || mg_case_is_huge(c))
		return;
	for (other.stack_offset = 0; other.stack_offset < MG_ALIGN_MOD; other.stack_offset += step) {
		if (other.stack_offset == c->stack_offset)
			continue;
		check_any(&other, 0, &again);
		if (again.cls != MG_OK)
			continue;
		mg_verdict_say(out,
			       "; with " MG_ABI_STACK_AT_ENTRY " = %u at entry it fails, with %u it "
			       "passes: it assumes more alignment of the stack than the ABI "
			       "promises: %s",
			       c->stack_offset, other.stack_offset,
			       c->variant->contract.kernel ? MG_ABI_STACK_PROMISE_KERNEL
							   : MG_ABI_STACK_PROMISE);
		return;
	}
}

/* The vector length is the thread's, any the CPU supports
 * (docs/contract.md, A12): a case that fails at its length and passes at
 * the one the program started with assumes a length. Say so, naming both. */
static void blame_vl(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_case other = *c;
	struct mg_verdict again;

	if (!c->vl || c->vl == mg_cpu_default_vl() || out->cls == MG_OK || out->cls == MG_ERROR ||
	    out->cls == MG_TIMEOUT || mg_situation_of(c) || mg_case_is_huge(c))
		return;
	other.vl = 0;
	check_any(&other, 0, &again);
	if (again.cls != MG_OK)
		return;
	mg_verdict_say(out,
		       "; with a vector length of %u bytes it fails, with %u it passes: it "
		       "assumes a vector length, which is the thread's, any the CPU supports "
		       "(Linux, Documentation/arm64/sve.rst)",
		       c->vl, mg_cpu_default_vl());
}

/* A caller may pass tagged pointers where the top byte is ignored
 * (docs/contract.md, A14, AK3): a case that fails tagged and passes
 * untagged reads the tags as address bits. Say so. */
static void blame_tag(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_case other = *c;
	struct mg_verdict again;

	if (!c->tag || out->cls == MG_OK || out->cls == MG_ERROR || out->cls == MG_TIMEOUT ||
	    mg_situation_of(c) || mg_case_is_huge(c))
		return;
	other.tag = 0;
	check_any(&other, 0, &again);
	if (again.cls != MG_OK)
		return;
	mg_verdict_say(out,
		       "; with its pointers tagged (top byte 0x%02x dst, 0x%02x src) it fails, "
		       "untagged it passes: the top byte of an address is ignored, and a caller "
		       "may set it (AAPCS64 6.4.1, Linux tagged-pointers.rst)",
		       c->tag, mg_src_tag(c));
}

/* A case that fails in a situation: what the situation's own blame says
 * (that the case passes without it, and why). A timeout there was slow,
 * which says nothing of what the situation did to it: no blame for that. */
static void blame_situation(const struct mg_case *c, struct mg_verdict *out)
{
	const struct mg_situation *s = mg_situation_of(c);

	if (s && out->cls != MG_OK && out->cls != MG_ERROR && out->cls != MG_TIMEOUT)
		s->blame(c, check_any, out);
}

void mg_check(const struct mg_case *c, struct mg_verdict *out)
{
	init_once();
	check_any(c, 0, out);
	blame_tag(c, out);
	blame_vl(c, out);
	blame_stack_offset(c, out);
	if (UINTPTR_MAX > 0xffffffffu && out->cls != MG_OK)
		blame_upper_int(c, out);
	blame_entry_flags(c, out);
	blame_fpenv(c, out);
	blame_situation(c, out);
}
