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
 * fraction of a second. */
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

int mg_huge_possible(char *why, size_t size)
{
	if (!reserve() && why)
		snprintf(why, size, "%s", space.why);
	return space.ready;
}

int mg_huge_available(char *why, size_t size)
{
	int ready = reserve() && map_regions();

	if (!ready && why)
		snprintf(why, size, "%s", space.why);
	return ready;
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

static int map_windows(const struct window *w, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *at = space.dst + w[i].lo;
		if (mmap(at, w[i].hi - w[i].lo, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			return 0;
		for (size_t x = w[i].lo; x < w[i].hi; x++)
			space.dst[x] = poison_at(x, seed);
	}
	return 1;
}

static void unmap_windows(const struct window *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		map_repeated(space.dst, w[i].lo, w[i].hi, space.scratch_fd, PROT_READ | PROT_WRITE);
}

struct expect {
	const struct mg_case *c;
	size_t dst_off, src_off; /* region offsets of the buffers */
};

static unsigned char expected_at(const struct expect *e, size_t x)
{
	size_t i = x - e->dst_off;

	if (x < e->dst_off || i >= e->c->len)
		return poison_at(x, e->c->seed);
	if (e->c->variant->op == MG_MEMSET)
		return (unsigned char)e->c->value;
	return space.pattern[(e->src_off + i) % CHUNK];
}

/* The first byte in window w, outside the buffer (`outside`) or in it, that
 * differs from what it should hold. */
static int check_window(const struct expect *e, const struct window *w, int outside,
			struct mg_verdict *out)
{
	const unsigned char *dst = space.dst + e->dst_off;

	for (size_t x = w->lo; x < w->hi; x++) {
		unsigned char want = expected_at(e, x);
		int in_buffer = x >= e->dst_off && x - e->dst_off < e->c->len;
		if (in_buffer == outside || space.dst[x] == want)
			continue;
		if (outside) {
			mg_verdict_start(out, MG_OOB_WRITE);
			out->has |= MG_HAS_ACCESS;
			out->access = MG_ACCESS_WRITE;
			mg_verdict_byte(out, (long long)x - (long long)e->dst_off, space.dst[x],
					want);
			mg_verdict_locate(out, MG_BUFFER_DST, dst, e->c->len, space.dst + x);
			mg_verdict_say(out, ": changed 0x%02x -> 0x%02x", want, space.dst[x]);
		} else {
			mg_verdict_start(out, MG_WRONG_RESULT);
			mg_verdict_byte(out, (long long)(x - e->dst_off), space.dst[x], want);
			mg_verdict_say(out,
				       "dst[%zu] (0x%zx) got 0x%02x want 0x%02x; the copy did not "
				       "reach this far, or not right, for a length of %zu",
				       x - e->dst_off, x - e->dst_off, space.dst[x], want,
				       e->c->len);
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
	struct expect e = {.c = c};
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
	if (!map_windows(w, ws.n, c->seed)) {
		mg_verdict_set(out, MG_ERROR, "the harness could not map its check windows: %s",
			       strerror(errno));
		return;
	}
	mg_outcome_call(&o, dst, mg_op_has_src(c->variant->op) ? src : NULL, clean_int);
	mg_judge(&o, o.faulted && in_space(o.fault.addr), &checks, out);
	unmap_windows(w, ws.n);
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
		mg_verdict_start(out, MG_OK);
		return;
	}
	/* Any other fault is the routine's own: not in memory it was given. */
	mg_judge(&o, 0, &checks, out);
	out->warnings = 0;
}

void mg_huge_check(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	out->warnings = 0;
	if (!reserve()) {
		mg_verdict_set(out, MG_ERROR, "lengths over %zu cannot run here: %s", MG_MAX_LEN,
			       space.why);
		return;
	}
	if (c->oracle)
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

void mg_huge_sweep(const struct mg_variant *v, uint64_t seed, enum mg_huge_mode mode, mg_case_fn fn,
		   void *ctx)
{
	static const size_t mapped[] = {MG_HUGE_2GIB, MG_HUGE_2GIB + 7, MG_HUGE_4GIB - 1,
					MG_HUGE_4GIB, MG_HUGE_4GIB + 4097};
	static const size_t oracle[] = {MG_HUGE_2GIB + 16, MG_HUGE_4GIB + 16};
	struct mg_case base;

	if (!MG_HUGE_LENGTHS || (v->op != MG_MEMCPY && v->op != MG_MEMMOVE && v->op != MG_MEMSET && v->op != MG_MEMPCPY))
		return;
	memset(&base, 0, sizeof base);
	base.variant = v;
	base.value = 0x5a;
	for (size_t i = 0; i < sizeof oracle / sizeof oracle[0]; i++)
		if (emit_huge(&base, oracle[i], 1, seed, fn, ctx))
			return;
	for (size_t i = 0; mode == MG_HUGE_ALL && i < sizeof mapped / sizeof mapped[0]; i++)
		if (emit_huge(&base, mapped[i], 0, seed, fn, ctx))
			return;
}
