/* One case: fill the buffers from the random pool, run the variant under
 * fault protection and the reference on a shadow copy of the same region,
 * then name the first thing that differs. The classes are tried from the
 * most to the least severe, so each case gets exactly one. */
#include "check.h"
#include "call.h"
#include "fault.h"
#include "rng.h"
#include "sandbox.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

unsigned mg_check_timeout_ms = 1000;

/* What one run of a case produced, and where it lives. */
struct run {
	const struct mg_case *c;
	const struct mg_sandbox *sb;
	struct mg_layout at;
	unsigned char *shadow_win; /* where the window's copy starts in the shadow */
	unsigned char *shadow_dst;
	int clean_int; /* memset: no garbage in the upper half of c's register */
	void *returned;
	struct mg_abi_record abi;
	struct mg_fault fault;
	int faulted;
};

__attribute__((format(printf, 3, 4))) static void verdict(struct mg_verdict *out, enum mg_class cls,
							  const char *format, ...)
{
	va_list args;

	out->cls = cls;
	va_start(args, format);
	vsnprintf(out->detail, sizeof out->detail, format, args);
	va_end(args);
}

/* Short fills come from the pool's first 64 KiB, which stays in cache: a
 * random spot in all 16 MiB would cost more cache misses than the case. */
#define HOT_POOL_BYTES ((size_t)64 << 10)

static void fill(const struct mg_sandbox *sb, unsigned char *to, size_t n, uint64_t key)
{
	size_t span = n + HOT_POOL_BYTES < sb->pool_size ? n + HOT_POOL_BYTES : sb->pool_size;
	size_t off = (size_t)mg_below(mg_mix64(key), span - n + 1);

	memcpy(to, sb->pool + off, n);
}

static void set_up(struct run *r)
{
	const struct mg_case *c = r->c;

	mg_sandbox_place(r->sb, c, &r->at);
	/* Zero length: the pointers are in guard pages and there is nothing to
	 * fill. (Even a zero-byte library memcpy on a PROT_NONE page can cost
	 * hundreds of cycles, in masked-access assists.) */
	if (c->len == 0)
		return;
	if (mg_op_has_src(c->variant->op) && !c->overlap)
		fill(r->sb, r->at.src_rw, c->len, c->seed * 2 + 1);
	fill(r->sb, r->at.win, r->at.win_len, c->seed * 2);
	/* Half a page off the window's own page offset: a copy at the same
	 * offset would stall on 4 KiB aliasing between its loads and stores. */
	r->shadow_win = r->sb->shadow + (((uintptr_t)r->at.win + MG_PAGE / 2) & (MG_PAGE - 1));
	memcpy(r->shadow_win, r->at.win, r->at.win_len);
	r->shadow_dst = r->shadow_win + (r->at.dst - r->at.win);
}

static unsigned timeout_for(size_t len)
{
	return mg_check_timeout_ms + (unsigned)(len >> 12);
}

/* Reading the AVX upper state costs about as much as a short case, so it is
 * read on every call of a variant that declares vector features, and on one
 * case in 16 (by seed, so a replay sees the same) of the others. */
static int wants_upper_check(const struct mg_case *c)
{
	const unsigned vector = MG_FEAT_AVX | MG_FEAT_AVX2 | MG_FEAT_AVX512F | MG_FEAT_AVX512BW;

	return (c->variant->features & vector) || (c->seed & 15) == 0;
}

/* sigsetjmp needs a frame that is live when the fault arrives: this one. */
static void call_guarded(struct run *r)
{
	const struct mg_case *c = r->c;

	r->faulted = 0;
	mg_abi_prepare(&r->abi, wants_upper_check(c));
	if (sigsetjmp(mg_fault_jmp, 0)) {
		mg_fault_take(&r->fault);
		r->faulted = 1;
		return;
	}
	mg_call_begin(timeout_for(c->len));
	r->returned =
		mg_call(c->variant, r->at.dst, r->at.src, c->value, c->len, r->clean_int, &r->abi);
	mg_call_end();
}

static void run_reference(struct run *r)
{
	const struct mg_case *c = r->c;
	const unsigned char *src = r->at.src;

	if (c->overlap)
		src = r->shadow_win + (r->at.src - r->at.win);
	mg_call_reference(c->variant->op, r->shadow_dst, src, c->value, c->len);
}

/* "src, 1 byte past the end (at src+17, len 17)" */
static void where(char *out, size_t size, const char *name, const unsigned char *base, size_t len,
		  const unsigned char *addr)
{
	if (addr < base)
		snprintf(out, size, "%s, %td byte%s before it (at %s-%td)", name, base - addr,
			 base - addr == 1 ? "" : "s", name, base - addr);
	else if (addr >= base + len)
		snprintf(out, size, "%s, %td byte%s past the end (at %s+%td, len %zu)", name,
			 addr - (base + len) + 1, addr - (base + len) ? "s" : "", name, addr - base,
			 len);
	else
		snprintf(out, size, "%s, inside it (at %s+%td)", name, name, addr - base);
}

static const char *fault_kind(const struct mg_fault *f)
{
	if (f->general_protection)
		return " (general-protection fault, e.g. a misaligned aligned-vector access)";
	switch (f->signo) {
	case SIGILL: return " (illegal instruction: a CPU feature missing?)";
	case SIGBUS: return " (bus error)";
	case SIGFPE: return " (arithmetic exception)";
	default: return "";
	}
}

static void crash(const struct run *r, struct mg_verdict *out)
{
	const struct mg_fault *f = &r->fault;
	const char *entry = (const char *)(uintptr_t)r->c->variant->entry.copy;
	ptrdiff_t off = (const char *)f->pc - entry;
	char pc[96];

	if (off >= 0 && off < 0x10000)
		snprintf(pc, sizeof pc, "%s+0x%tx", r->c->variant->symbol, off);
	else
		snprintf(pc, sizeof pc, "%p", f->pc);
	verdict(out, MG_CRASH, "%s%s at pc %s, address %p", mg_signal_name(f->signo), fault_kind(f),
		pc, f->addr);
}

/* How far `a` is from [base, base + len): 0 inside it. */
static size_t distance(const unsigned char *base, size_t len, const unsigned char *a)
{
	if (a < base)
		return (size_t)(base - a);
	return a >= base + len ? (size_t)(a - (base + len)) + 1 : 0;
}

/* A stray access is blamed on the nearer buffer. */
static int nearer_src(const struct run *r, const unsigned char *a)
{
	size_t len = r->c->len;

	return mg_op_has_src(r->c->variant->op) &&
	       distance(r->at.src, len, a) < distance(r->at.dst, len, a);
}

/* A page fault in the sandbox: which buffer, which side, how far. */
static int classify_page_fault(const struct run *r, struct mg_verdict *out)
{
	const struct mg_fault *f = &r->fault;
	const unsigned char *a = f->addr;
	const struct mg_case *c = r->c;
	int is_write = f->access == MG_ACCESS_WRITE;
	char at[160];

	if (f->signo != SIGSEGV || f->general_protection || f->access == MG_ACCESS_UNKNOWN ||
	    !(mg_in_src_arena(r->sb, a) || mg_in_dst_arena(r->sb, a)))
		return 0;
	if (is_write && mg_op_has_src(c->variant->op) && !c->overlap &&
	    distance(r->at.src, c->len, a) == 0) {
		verdict(out, MG_SRC_MODIFIED,
			"wrote src+%td (len %zu); the source is read-only during the call",
			a - r->at.src, c->len);
		return 1;
	}
	if (nearer_src(r, a))
		where(at, sizeof at, "src", r->at.src, c->len, a);
	else
		where(at, sizeof at, "dst", r->at.dst, c->len, a);
	verdict(out, is_write ? MG_OOB_WRITE : MG_OOB_READ, "%s", at);
	return 1;
}

static void classify_fault(const struct run *r, struct mg_verdict *out)
{
	if (r->fault.signo == SIGALRM)
		verdict(out, MG_TIMEOUT, "no return within %u ms (watchdog)",
			timeout_for(r->c->len));
	else if (!classify_page_fault(r, out))
		crash(r, out);
}

/* Offsets of the first and the last byte that differ, or -1. */
/* Buffers here often end at a guard page. The C library's memcmp reads short
 * tails with masked vector loads, and a masked load that reaches into an
 * unmapped page, even for bytes it then ignores, takes a microcode assist
 * that costs more than the whole case. Short compares use plain loads. */
#define SHORT_COMPARE 256

static int equal_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
	uint64_t x, y;
	size_t i = 0;

	if (n > SHORT_COMPARE)
		return memcmp(a, b, n) == 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

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

/* Stray writes near the destination that did not reach a guard page. */
static int check_red_zones(const struct run *r, struct mg_verdict *out)
{
	const unsigned char *dst = r->at.dst, *want = r->shadow_dst;
	size_t before = (size_t)(dst - r->at.win);
	size_t after = r->at.win_len - before - r->c->len;
	ptrdiff_t i = first_diff(dst - before, want - before, before);
	char at[160];

	if (i >= 0) {
		const unsigned char *p = dst - before + i;
		where(at, sizeof at, "dst", dst, r->c->len, p);
		verdict(out, MG_OOB_WRITE, "%s: changed 0x%02x -> 0x%02x", at, want[p - dst], *p);
		return 1;
	}
	i = last_diff(dst + r->c->len, want + r->c->len, after);
	if (i >= 0) {
		const unsigned char *p = dst + r->c->len + i;
		where(at, sizeof at, "dst", dst, r->c->len, p);
		verdict(out, MG_OOB_WRITE, "%s: changed 0x%02x -> 0x%02x", at, want[p - dst], *p);
		return 1;
	}
	return 0;
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
	verdict(out, MG_WRONG_RESULT,
		"dst[%td] got 0x%02x want 0x%02x (%zu of %zu bytes wrong); from dst[%td] got %s "
		"want %s",
		i, got[i], want[i], wrong, len, i, got_hex, want_hex);
	return 1;
}

/* "dst+17", "src+0" or the raw pointer. */
static void name_pointer(char *out, size_t size, const struct run *r, const void *p)
{
	const unsigned char *q = p;
	ptrdiff_t near = (ptrdiff_t)r->c->len + MG_PAGE;

	if (q - r->at.dst >= -near && q - r->at.dst <= near)
		snprintf(out, size, "dst%+td", q - r->at.dst);
	else if (mg_op_has_src(r->c->variant->op) && q - r->at.src >= -near &&
		 q - r->at.src <= near)
		snprintf(out, size, "src%+td", q - r->at.src);
	else
		snprintf(out, size, "%p", p);
}

static int check_return(const struct run *r, struct mg_verdict *out)
{
	char got[64];

	if (r->c->variant->ret != MG_RET_DST || r->returned == r->at.dst)
		return 0;
	name_pointer(got, sizeof got, r, r->returned);
	verdict(out, MG_WRONG_RETURN, "returned %s, want dst+0", got);
	return 1;
}

static int check_abi(const struct run *r, struct mg_verdict *out)
{
	char what[MG_DETAIL_MAX - 32];

	if (!mg_abi_violation(&r->abi, what, sizeof what))
		return 0;
	verdict(out, MG_ABI_VIOLATION, "%s", what);
	return 1;
}

/* The bytes: red zones (which the reference does not need), then dst. */
static int check_bytes(struct run *r, struct mg_verdict *out)
{
	if (r->c->len == 0)
		return 0;
	if (check_red_zones(r, out))
		return 1;
	run_reference(r);
	return check_result(r, out);
}

static void check_once(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	struct run r; /* not zeroed: each field is set before it is read, and
		       * clearing 350 bytes per case shows in the benchmark */

	r.c = c;
	r.sb = mg_sandbox_get();
	r.clean_int = clean_int;

	set_up(&r);
	call_guarded(&r);
	out->warnings = 0;
	if (r.faulted) {
		classify_fault(&r, out);
		return;
	}
	if (mg_abi_dirty_upper(&r.abi))
		out->warnings |= MG_WARN_DIRTY_UPPER;
	if (check_abi(&r, out) || check_bytes(&r, out) || check_return(&r, out))
		return;
	out->cls = MG_OK;
	out->detail[0] = '\0';
}

/* memset's c arrives with garbage in the upper half of its register, which
 * the ABI leaves undefined. If a failing case passes once that half is clean,
 * the variant read it: name that, rather than the symptom. */
static void blame_upper_int(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_verdict clean;

	if (c->variant->op != MG_MEMSET || out->cls == MG_OK || out->cls == MG_TIMEOUT)
		return;
	check_once(c, 1, &clean);
	if (clean.cls != MG_OK)
		return;
	verdict(out, MG_ABI_VIOLATION,
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

void mg_check(const struct mg_case *c, struct mg_verdict *out)
{
	init_once();
	check_once(c, 0, out);
	if (UINTPTR_MAX > 0xffffffffu)
		blame_upper_int(c, out);
}
