/* The huge-length check (see huge.h). The space is mapped once per process:
 *
 *   [g] src below [g] dst [g] src above [g] oracle src below | oracle dst |
 *   oracle src above
 *
 * Each region holds the longest length. The source regions are a 16 MiB
 * pattern memfd (CHUNK) mapped read-only again and again; the destination
 * is a 16 MiB scratch memfd mapped read-write again and again, so a 4 GiB
 * copy needs 32 MiB of memory. Per case, real pages replace the scratch where the
 * result is checked. The oracle regions are PROT_NONE but for their first
 * 64 KiB.
 *
 * The first pass over a fresh mapping costs microseconds per page (page
 * table accessed/dirty bits, in a VM), so setting up touches every region
 * once: about 8 s, paid once per process, after which a 4 GiB copy takes a
 * fraction of a second.
 *
 * The overlapping memmove of 2 GiB and more has its own mapping (section
 * "one buffer" below): the only huge case a 32-bit address space can hold. */
#include "huge.h"
#include "outcome.h"
#include "rng.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* 16 MiB: measured here, a 2 MiB source or scratch mapped over and over
 * makes every pass slow (2 MiB aliases the caches' own reach), while 8 MiB
 * and more run at memory speed once the page tables are warm. The pattern
 * is cut from the sandbox's pool, which is longer (an arena and a page). */
#define CHUNK	    ((size_t)16 << 20)
#define GUARD	    ((size_t)4096)
#define WINDOW	    ((size_t)64 << 10) /* real bytes around each checked point */
#define MAX_WINDOWS 8
#define REGIONS	    6

struct space {
	size_t region;	       /* bytes per region, a multiple of CHUNK */
	unsigned char *src[2]; /* mapped mode: the source below and above dst */
	unsigned char *dst;
	unsigned char *osrc[2]; /* oracle mode */
	unsigned char *odst;
	const unsigned char *pattern; /* what every CHUNK of a source region holds */
	int scratch_fd;
	int ready;
	char why[160];
};

static struct space space;

/* A range of real pages in the destination region, offsets from its start. */
struct window {
	size_t lo, hi;
};

static int fail(const char *what)
{
	snprintf(space.why, sizeof space.why, "%s: %s", what, strerror(errno));
	return 0;
}

static int memfd_of(const char *name, size_t size, unsigned flags)
{
	int fd = memfd_create(name, MFD_CLOEXEC | flags);

	if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Maps [at, at + size) onto fd, one CHUNK at a time, from file offset
 * (at - base) mod CHUNK. */
static int map_repeated(unsigned char *base, size_t from, size_t to, int fd, int prot)
{
	while (from < to) {
		size_t in_chunk = from % CHUNK;
		size_t n = CHUNK - in_chunk < to - from ? CHUNK - in_chunk : to - from;
		if (mmap(base + from, n, prot, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd,
			 (off_t)in_chunk) == MAP_FAILED)
			return 0;
		from += n;
	}
	return 1;
}

static long max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* The source regions map the pattern memfd read-only after sealing it
 * against writes, so a variant cannot mprotect() them writable: the 4 GiB+
 * check runs variant after variant in one process, and a pattern changed by
 * one would fail the next. (Where sealing fails they are merely read-only.)
 * The expected bytes come from the pool, never from a view of the memfd. */
static int make_pattern(void)
{
	const struct mg_sandbox *sb = mg_sandbox_get();
	int fd = memfd_of("memgate-huge-pattern", CHUNK, MFD_ALLOW_SEALING);
	unsigned char *rw;

	if (fd < 0)
		return fail("memfd_create");
	rw = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED)
		return fail("mmap (pattern)");
	memcpy(rw, sb->pool, CHUNK); /* fixed bytes: a case replays the same */
	munmap(rw, CHUNK);
	(void)fcntl(fd, F_ADD_SEALS,
		    F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	space.pattern = sb->pool;
	for (int i = 0; i < 2; i++)
		if (!map_repeated(space.src[i], 0, space.region, fd, PROT_READ))
			return fail("mmap (source pattern)");
	close(fd);
	return 1;
}

/* One write pass over the destination, one read pass over each source. */
static void warm_up(void)
{
	volatile unsigned char sink = 0;

	memset(space.dst, 0, space.region);
	for (int i = 0; i < 2; i++)
		for (size_t x = 0; x < space.region; x += GUARD)
			sink ^= space.src[i][x];
	(void)sink;
}

static int make_space(void)
{
	size_t stride = space.region + GUARD;
	unsigned char *base;
	long needed = (long)(3 * (space.region / CHUNK) + 64 + 2 * MAX_WINDOWS);
	long limit = max_map_count();

	if (limit >= 0 && limit < needed + 1024) {
		snprintf(space.why, sizeof space.why,
			 "vm.max_map_count is %ld; the check needs about %ld mappings", limit,
			 needed + 1024);
		return 0;
	}
	base = mmap(NULL, REGIONS * stride + GUARD, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return fail("cannot reserve the address space");
	base += GUARD;
	space.src[0] = base;
	space.dst = base + stride;
	space.src[1] = base + 2 * stride;
	space.osrc[0] = base + 3 * stride;
	space.odst = base + 4 * stride;
	space.osrc[1] = base + 5 * stride;
	for (int i = 0; i < 2; i++)
		if (mprotect(space.osrc[i], MG_ORACLE_MAPPED, PROT_READ) != 0)
			return fail("mprotect (oracle source)");
	if (mprotect(space.odst, MG_ORACLE_MAPPED, PROT_READ | PROT_WRITE) != 0)
		return fail("mprotect (oracle destination)");
	return 1;
}

/* The mapped regions, on first use: an oracle-only run does without. */
static int map_regions(void)
{
	static int state; /* 0 not yet, 1 ready, -1 failed */

	if (state)
		return state > 0;
	state = -1;
	space.scratch_fd = memfd_of("memgate-huge-scratch", CHUNK, 0);
	if (space.scratch_fd < 0)
		return fail("memfd_create");
	if (!map_repeated(space.dst, 0, space.region, space.scratch_fd, PROT_READ | PROT_WRITE))
		return fail("mmap (destination scratch)");
	if (!make_pattern())
		return 0;
	warm_up();
	state = 1;
	return 1;
}

/* The reservation and the oracle regions: cheap. */
static int reserve(void)
{
	static int tried;

	if (tried)
		return space.ready;
	tried = 1;
	if (!MG_HUGE_LENGTHS) {
		snprintf(space.why, sizeof space.why,
			 "lengths of 4 GiB and more need a 64-bit size_t");
		return 0;
	}
	space.region = (MG_HUGE_MAX_LEN + MG_ALIGN_MOD + CHUNK - 1) / CHUNK * CHUNK;
	space.ready = make_space();
	return space.ready;
}

/* ---- mapped mode -------------------------------------------------------- */

static size_t page_down(size_t x)
{
	return x & ~(GUARD - 1);
}

static void add_window(struct window *w, size_t *n, size_t lo, size_t hi, size_t region)
{
	lo = page_down(lo);
	hi = page_down(hi + GUARD - 1);
	if (hi > region)
		hi = region;
	for (size_t i = 0; i < *n; i++)
		if (lo <= w[i].hi && hi >= w[i].lo) { /* overlaps or touches: merge */
			w[i].lo = lo < w[i].lo ? lo : w[i].lo;
			w[i].hi = hi > w[i].hi ? hi : w[i].hi;
			return;
		}
	w[(*n)++] = (struct window){lo, hi};
}

/* Real pages around the points where a count error shows: both ends, 2 GiB,
 * 4 GiB, and the quarters between. */
static size_t choose_windows(size_t dst_off, size_t len, struct window *w)
{
	const size_t points[] = {0, MG_HUGE_2GIB, MG_HUGE_4GIB, len / 4, len / 2, len / 4 * 3, len};
	size_t n = 0;

	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		size_t at = dst_off + (points[i] < len ? points[i] : len);
		size_t lo = at > WINDOW / 2 ? at - WINDOW / 2 : 0;
		add_window(w, &n, lo, at + WINDOW / 2, space.region);
	}
	return n;
}

/* The bytes a window starts with, from the fixed pool: a function of the
 * region offset and the case's seed, so the check can recompute them. */
static unsigned char poison_at(size_t x, uint64_t seed)
{
	const struct mg_sandbox *sb = mg_sandbox_get();
	return sb->pool[(x + seed) % sb->pool_size];
}

/* Real pages over the scratch at `base`'s windows, filled with the bytes
 * poison_at gives. */
static int map_windows(unsigned char *base, const struct window *w, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *at = base + w[i].lo;
		if (mmap(at, w[i].hi - w[i].lo, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			return 0;
		for (size_t x = w[i].lo; x < w[i].hi; x++)
			base[x] = poison_at(x, seed);
	}
	return 1;
}

static void unmap_windows(unsigned char *base, int fd, const struct window *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		map_repeated(base, w[i].lo, w[i].hi, fd, PROT_READ | PROT_WRITE);
}

struct expect {
	const struct mg_case *c;
	unsigned char *base;	 /* the region holding dst (and, overlapping, src) */
	size_t dst_off, src_off; /* region offsets of the buffers */
};

/* What byte x of the region should hold, or -1 if it cannot be known: an
 * overlapping move's byte whose source lies outside the window `in` (in
 * the aliased scratch). */
static int expected_at(const struct expect *e, const struct window *in, size_t x)
{
	size_t i = x - e->dst_off, from = e->src_off + i;

	if (x < e->dst_off || i >= e->c->len)
		return poison_at(x, e->c->seed);
	if (e->c->variant->op == MG_MEMSET)
		return (unsigned char)e->c->value;
	if (e->c->overlap)
		return from >= in->lo && from < in->hi ? poison_at(from, e->c->seed) : -1;
	return space.pattern[from % CHUNK];
}

/* The first byte in window w, outside the buffer (`outside`) or in it, that
 * differs from what it should hold. */
static int check_window(const struct expect *e, const struct window *w, int outside,
			struct mg_verdict *out)
{
	const unsigned char *region = e->base, *dst = region + e->dst_off;

	for (size_t x = w->lo; x < w->hi; x++) {
		int want = expected_at(e, w, x);
		int in_buffer = x >= e->dst_off && x - e->dst_off < e->c->len;
		if (in_buffer == outside || want < 0 || region[x] == want)
			continue;
		if (outside) {
			mg_verdict_start(out, MG_OOB_WRITE);
			out->has |= MG_HAS_ACCESS;
			out->access = MG_ACCESS_WRITE;
			mg_verdict_byte(out, (long long)x - (long long)e->dst_off, region[x],
					(unsigned)want);
			mg_verdict_locate(out, MG_BUFFER_DST, dst, e->c->len, region + x);
			mg_verdict_say(out, ": changed 0x%02x -> 0x%02x", want, region[x]);
		} else {
			mg_verdict_start(out, MG_WRONG_RESULT);
			mg_verdict_byte(out, (long long)(x - e->dst_off), region[x],
					(unsigned)want);
			mg_verdict_say(out,
				       "dst[%zu] (0x%zx) got 0x%02x want 0x%02x; the copy did not "
				       "reach this far, or not right, for a length of %zu",
				       x - e->dst_off, x - e->dst_off, region[x], want, e->c->len);
		}
		return 1;
	}
	return 0;
}

/* The windows of one mapped case, for the judge. */
struct windows {
	const struct expect *e;
	const struct window *w;
	size_t n;
};

static int check_windows(const struct windows *ws, int outside, struct mg_verdict *out)
{
	for (size_t i = 0; i < ws->n; i++)
		if (check_window(ws->e, &ws->w[i], outside, out))
			return 1;
	return 0;
}

static int red_zones_of(void *ctx, struct mg_verdict *out)
{
	return check_windows(ctx, 1, out);
}

static int bytes_of(void *ctx, struct mg_verdict *out)
{
	return check_windows(ctx, 0, out);
}

static int in_space(const void *addr)
{
	const unsigned char *a = addr;
	unsigned char *lo = space.src[0] - GUARD;
	return a >= lo && a < lo + REGIONS * (space.region + GUARD) + GUARD;
}

static void check_mapped(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	unsigned char *src_region = space.src[c->src_above];
	struct mg_outcome o = {.c = c};
	struct window w[MAX_WINDOWS];
	struct expect e = {.c = c, .base = space.dst};
	struct windows ws = {&e, w, 0};
	const struct mg_judge_checks checks = {NULL, red_zones_of, bytes_of, NULL, &ws};
	unsigned char *src = mg_place_buffer(src_region, src_region + space.region, 0, c->len,
					     c->src_align, c->place);
	unsigned char *dst = mg_place_buffer(space.dst, space.dst + space.region, 0, c->len,
					     c->dst_align, c->place);

	if (!map_regions()) {
		mg_verdict_set(out, MG_ERROR, "the harness could not map the huge regions: %s",
			       space.why);
		return;
	}
	e.dst_off = (size_t)(dst - space.dst);
	e.src_off = (size_t)(src - src_region);
	ws.n = choose_windows(e.dst_off, c->len, w);
	if (!map_windows(space.dst, w, ws.n, c->seed)) {
		mg_verdict_set(out, MG_ERROR, "the harness could not map its check windows: %s",
			       strerror(errno));
		return;
	}
	mg_outcome_call(&o, dst, mg_op_has_src(c->variant->op) ? src : NULL, clean_int);
	mg_judge(&o, o.faulted && in_space(o.fault.addr), &checks, out);
	unmap_windows(space.dst, space.scratch_fd, w, ws.n);
}

/* ---- one buffer: the overlapping memmove of 2 GiB and more --------------- */

/* One region holds the move's whole span (len + |dist|): the scratch memfd
 * mapped over and over, with real pages for the windows around the checked
 * points (both ends, 2 GiB into the span, the quarters, and 0x80000000
 * where the region crosses it). A dst byte in a window is checked when its
 * source byte lies in the same window: a correct memmove reads each source
 * byte before anything overwrites it, and nothing but the move writes a
 * window, so those hold the pattern whatever the aliased scratch holds.
 * About 130 mappings and 16 MiB of memory; the address space it needs, one
 * piece of 2 GiB and more, is what a 32-bit process may lack. */
static struct one_region {
	unsigned char *base;
	size_t size;
	int fd;
	int reserved, mapped; /* 0 not yet, 1 done, -1 failed */
	int na;		      /* the failure is the address space's: n/a */
	char why[160];
} one = {.fd = -1};

static int one_fail(const char *what)
{
	snprintf(one.why, sizeof one.why, "%s: %s", what, strerror(errno));
	return 0;
}

static int one_reserve(void)
{
	unsigned char *p;

	if (one.reserved)
		return one.reserved > 0;
	one.reserved = -1;
	one.size = (MG_HUGE_ONE_MAX_SPAN + MG_ALIGN_MOD + CHUNK - 1) / CHUNK * CHUNK;
	p = mmap(NULL, one.size + 2 * GUARD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		one.na = 1;
		snprintf(one.why, sizeof one.why,
			 "this address space has no free %zu MiB in one piece for a move of "
			 "2 GiB and more: %s",
			 (one.size + 2 * GUARD) >> 20, strerror(errno));
		return 0;
	}
	one.base = p + GUARD;
	one.reserved = 1;
	return 1;
}

static int one_map(void)
{
	if (!one_reserve())
		return 0;
	if (one.mapped)
		return one.mapped > 0;
	one.mapped = -1;
	one.fd = memfd_of("memgate-huge-one", CHUNK, 0);
	if (one.fd < 0)
		return one_fail("memfd_create (one buffer)");
	if (!map_repeated(one.base, 0, one.size, one.fd, PROT_READ | PROT_WRITE))
		return one_fail("mmap (one-buffer scratch)");
	one.mapped = 1;
	return 1;
}

unsigned char *mg_huge_one_region(size_t *size)
{
	if (!one_reserve())
		return NULL;
	*size = one.size;
	return one.base;
}

static int in_one(const void *addr)
{
	const unsigned char *a = addr;
	return one.base && a >= one.base - GUARD && a < one.base + one.size + GUARD;
}

/* The windows: around the span's ends (and the bytes only src or dst
 * cover), 2 GiB into it, its quarters, and 0x80000000. */
static size_t one_windows(size_t lower_off, size_t span, struct window *w)
{
	const size_t points[] = {0, MG_HUGE_2GIB, span / 4, span / 2, span / 4 * 3, span};
	uintptr_t at_2gib = (uintptr_t)0x80000000u - (uintptr_t)one.base;
	size_t n = 0;

	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		size_t at = lower_off + (points[i] < span ? points[i] : span);
		add_window(w, &n, at > WINDOW / 2 ? at - WINDOW / 2 : 0, at + WINDOW / 2, one.size);
	}
	if ((uintptr_t)one.base < 0x80000000u && at_2gib < one.size)
		add_window(w, &n, at_2gib > WINDOW / 2 ? at_2gib - WINDOW / 2 : 0,
			   at_2gib + WINDOW / 2, one.size);
	return n;
}

static void check_one_buffer(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	size_t d = (size_t)labs(c->dist), span = c->len + d;
	unsigned lower_align = c->dist > 0 ? c->src_align : c->dst_align;
	struct mg_outcome o = {.c = c};
	struct window w[MAX_WINDOWS];
	struct expect e = {.c = c};
	struct windows ws = {&e, w, 0};
	const struct mg_judge_checks checks = {NULL, red_zones_of, bytes_of, NULL, &ws};
	unsigned char *lower, *src;

	if (!one_map()) {
		mg_verdict_set(out, MG_ERROR, "the harness could not map the 2 GiB+ region: %s",
			       one.why);
		return;
	}
	e.base = one.base; /* mapped on first use */
	lower = mg_place_buffer(one.base, one.base + one.size, 0, span, lower_align, c->place);
	src = c->dist > 0 ? lower : lower + d;
	e.src_off = (size_t)(src - one.base);
	e.dst_off = e.src_off + (size_t)c->dist; /* wraps to below src when dist < 0 */
	ws.n = one_windows((size_t)(lower - one.base), span, w);
	if (!map_windows(one.base, w, ws.n, c->seed)) {
		mg_verdict_set(out, MG_ERROR, "the harness could not map its check windows: %s",
			       strerror(errno));
		return;
	}
	mg_outcome_call(&o, one.base + e.dst_off, src, clean_int);
	mg_judge(&o, o.faulted && in_one(o.fault.addr), &checks, out);
	unmap_windows(one.base, one.fd, w, ws.n);
}

/* ---- whether it can run -------------------------------------------------- */

/* A 32-bit build has only the one-buffer cases: their region is its huge
 * space. */
int mg_huge_possible(char *why, size_t size)
{
	int ready = MG_HUGE_LENGTHS ? reserve() : one_reserve();

	if (!ready && why)
		snprintf(why, size, "%s", MG_HUGE_LENGTHS ? space.why : one.why);
	return ready;
}

int mg_huge_available(char *why, size_t size)
{
	int ready = MG_HUGE_LENGTHS ? reserve() && map_regions() : one_map();

	if (!ready && why)
		snprintf(why, size, "%s", MG_HUGE_LENGTHS ? space.why : one.why);
	return ready;
}

int mg_huge_na(void)
{
	return !MG_HUGE_LENGTHS && one.na;
}

int mg_huge_applies(enum mg_op op)
{
	return MG_HUGE_LENGTHS ? mg_op_takes_huge(op) : op == MG_MEMMOVE;
}

/* ---- oracle mode -------------------------------------------------------- */

/* What a correct routine does with an oracle case: it runs into the
 * unmapped rest of a buffer and page-faults there. */
static int faulted_at_guard(const struct mg_outcome *o)
{
	return o->faulted && in_space(o->fault.addr) && o->fault.signo == SIGSEGV &&
	       !o->fault.general_protection;
}

static int nothing_to_check(void *ctx, struct mg_verdict *out)
{
	(void)ctx;
	(void)out;
	return 0;
}

/* Returning at all is the failure: the bytes cannot be right. */
static int returned_from_oracle(void *ctx, struct mg_verdict *out)
{
	const struct mg_case *c = ctx;

	mg_verdict_set(out, MG_WRONG_RESULT,
		       "returned normally from a length of %zu (0x%zx) with only %zu bytes mapped "
		       "at each buffer: the length was truncated or compared as signed (a "
		       "correct routine runs into the unmapped rest and faults)",
		       c->len, c->len, MG_ORACLE_MAPPED);
	return 1;
}

static void check_oracle(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	unsigned char *src = space.osrc[c->src_above] + c->src_align;
	unsigned char *dst = space.odst + c->dst_align;
	struct mg_outcome o = {.c = c};
	const struct mg_judge_checks checks = {NULL, nothing_to_check, returned_from_oracle, NULL,
					       (void *)c};

	mg_outcome_call(&o, dst, mg_op_has_src(c->variant->op) ? src : NULL, clean_int);
	if (faulted_at_guard(&o)) {
		out->warnings = 0;
		out->unjudged = 0;
		mg_verdict_start(out, MG_OK);
		return;
	}
	/* Any other fault is the routine's own: not in memory it was given. */
	mg_judge(&o, 0, &checks, out);
	out->warnings = 0;
	out->unjudged = 0;
}

void mg_huge_check(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	char why[160];

	out->warnings = 0;

	out->unjudged = 0;
	if (!mg_huge_possible(why, sizeof why)) {
		mg_verdict_set(out, MG_ERROR, "lengths over %zu cannot run here: %s", MG_MAX_LEN,
			       why);
		return;
	}
	if (c->overlap)
		check_one_buffer(c, clean_int, out);
	else if (c->oracle)
		check_oracle(c, clean_int, out);
	else
		check_mapped(c, clean_int, out);
}

/* ---- the cases ---------------------------------------------------------- */

static int emit_huge(const struct mg_case *base, size_t len, int oracle, uint64_t seed,
		     mg_case_fn fn, void *ctx)
{
	struct mg_case c = *base;
	int orders = mg_op_has_src(c.variant->op) ? 2 : 1;

	c.len = len;
	c.oracle = oracle;
	c.seed = mg_mix64(seed ^ len ^ (uint64_t)oracle);
	/* Mapped: flush against the guard page after; oracle: at the start. */
	c.place = oracle ? MG_PLACE_BEFORE : MG_PLACE_AFTER;
	c.src_align = c.dst_align = oracle ? 0 : (unsigned)(-len & (MG_ALIGN_MOD - 1));
	for (c.src_above = 0; c.src_above < orders; c.src_above++)
		if (fn(&c, ctx))
			return 1;
	return 0;
}

#define MIB ((size_t)1 << 20)

/* Mid-size lengths past the sandbox, 16 MiB to 1 GiB: powers of two and
 * their neighbours, and where x86 routines commonly switch to non-temporal
 * stores (glibc's default threshold is 3/4 of the shared cache: 24 MiB for
 * 32 MiB, 48 MiB for 64 MiB). A few in the quick profile, all in the full. */
static const size_t midsize_quick[] = {MG_MAX_LEN + 1, 24 * MIB + 1, 64 * MIB - 1};
static const size_t midsize_full[] = {
	MG_MAX_LEN + 1, 24 * MIB - 1, 24 * MIB,	  24 * MIB + 1,	 32 * MIB - 1,	32 * MIB,
	32 * MIB + 1,	48 * MIB,     48 * MIB + 1, 64 * MIB - 1,  64 * MIB + 1,	128 * MIB,
	128 * MIB + 1,	256 * MIB - 1, 256 * MIB + 1, 512 * MIB + 1, 1024 * MIB - 1, 1024 * MIB,
	1024 * MIB + 1};

static int sweep_midsize(const struct mg_case *base, int full, uint64_t seed, mg_case_fn fn,
			 void *ctx)
{
	const size_t *lens = full ? midsize_full : midsize_quick;
	size_t n = full ? sizeof midsize_full / sizeof midsize_full[0]
					     : sizeof midsize_quick / sizeof midsize_quick[0];

	for (size_t i = 0; i < n; i++)
		if (emit_huge(base, lens[i], 0, seed, fn, ctx))
			return 1;
	return 0;
}

/* One one-buffer case, flush against the guard page after, if the
 * variant's contract allows it: at the alignment that makes it flush, else
 * at alignment 0. Returns -1 if neither is valid, else what `fn` says. */
static int emit_one_buffer(const struct mg_case *base, size_t len, long dist, uint64_t seed,
			   mg_case_fn fn, void *ctx)
{
	const unsigned aligns[] = {(unsigned)(-len & (MG_ALIGN_MOD - 1)), 0};
	char why[160];

	for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
		struct mg_case c = *base;
		c.len = len;
		c.seed = mg_mix64(seed ^ len ^ (uint64_t)dist);
		c.place = MG_PLACE_AFTER;
		c.src_align = aligns[a];
		mg_case_set_overlap(&c, dist);
		if (mg_case_valid(&c, why, sizeof why))
			return fn(&c, ctx);
	}
	return -1;
}

/* The overlapping memmove of 2 GiB and more, both directions: a length
 * that is negative as a 32-bit int, and distances of a byte, a cache line
 * and a page and a byte. The quick profile: the first length the contract
 * allows (2 GiB + 65, else 2 GiB) at +-1. */
static int sweep_one_buffer(const struct mg_case *base, int full, uint64_t seed, mg_case_fn fn,
			    void *ctx)
{
	static const size_t lens[] = {MG_HUGE_2GIB + 65, MG_HUGE_2GIB, MG_HUGE_2GIB + 4097};
	static const long dists[] = {1, 64, 4097};
	size_t n_dists = full ? sizeof dists / sizeof dists[0] : 1;

	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		int ran = 0;
		for (size_t k = 0; k < n_dists; k++)
			for (long sign = 1; sign >= -1; sign -= 2) {
				int r = emit_one_buffer(base, lens[i], sign * dists[k], seed, fn,
							ctx);
				if (r > 0)
					return 1;
				ran |= r == 0;
			}
		if (ran && !full)
			return 0;
	}
	return 0;
}

void mg_huge_sweep(const struct mg_variant *v, int full, uint64_t seed, enum mg_huge_mode mode,
		   mg_case_fn fn, void *ctx)
{
	static const size_t mapped[] = {MG_HUGE_2GIB, MG_HUGE_2GIB + 7, MG_HUGE_4GIB - 1,
					MG_HUGE_4GIB, MG_HUGE_4GIB + 4097};
	static const size_t oracle[] = {MG_HUGE_2GIB + 16, MG_HUGE_4GIB + 16};
	struct mg_case base;

	if (!mg_huge_applies(v->op))
		return;
	memset(&base, 0, sizeof base);
	base.variant = v;
	base.value = 0x5a;
	/* 32-bit: the one-buffer cases are all there is, and cheap enough
	 * under emulation (a 2 GiB move takes about 3 s under qemu-i386). */
	if (!MG_HUGE_LENGTHS) {
		sweep_one_buffer(&base, full, seed, fn, ctx);
		return;
	}
	for (size_t i = 0; i < sizeof oracle / sizeof oracle[0]; i++)
		if (emit_huge(&base, oracle[i], 1, seed, fn, ctx))
			return;
	if (sweep_midsize(&base, full, seed, fn, ctx))
		return;
	for (size_t i = 0; mode == MG_HUGE_ALL && i < sizeof mapped / sizeof mapped[0]; i++)
		if (emit_huge(&base, mapped[i], 0, seed, fn, ctx))
			return;
	if (mode == MG_HUGE_ALL && v->op == MG_MEMMOVE)
		sweep_one_buffer(&base, full, seed, fn, ctx);
}
