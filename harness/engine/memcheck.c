/* Fences around the buffers under memcheck, and naming what crossed them.
 *
 * memcheck's client requests only say how many errors it has seen, not
 * where, so a rise in the count is located by calling the variant again:
 * the same pointers and length make the same accesses, whatever the bytes. */
#include "memcheck.h"
#include "cpu.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* valgrind's headers come with valgrind, which `make` does not need: built
 * without them, the harness never sees memcheck (and `make valgrind`, whose
 * canary case then passes, says so). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND		  0
#define VALGRIND_COUNT_ERRORS		  0u
#define VALGRIND_MAKE_MEM_NOACCESS(p, n)  ((void)(p), (void)(n), 0)
#define VALGRIND_MAKE_MEM_DEFINED(p, n)	  ((void)(p), (void)(n), 0)
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n), 0)
#define VALGRIND_GET_VBITS(p, vbits, n)	  ((void)(p), (void)(vbits), (void)(n), 0)
#endif

/* The largest naturally aligned block an over-read may stay in and be only
 * a warning: a cache line, which never straddles a page. */
#define ALIGNED_BLOCK_MAX 64
/* aarch64's MTE tags memory in 16-byte granules: an over-read into the next
 * granule faults there, whatever the page. */
#define MTE_GRANULE 16

enum mark { MARK_NOACCESS, MARK_DEFINED, MARK_UNDEFINED };

static size_t at_most_redzone(size_t n)
{
	return n < MG_REDZONE ? n : MG_REDZONE;
}

static void zone_add(struct mg_memcheck *m, unsigned char *edge, size_t room, int after,
		     enum mg_buffer buffer)
{
	if (room == 0)
		return;
	m->zone[m->zones].buffer = buffer;
	m->zone[m->zones].edge = edge;
	m->zone[m->zones].room = room;
	m->zone[m->zones].after = after;
	m->zones++;
}

/* The byte `d` bytes out from the buffer (1 is the one next to it). */
static unsigned char *zone_byte(const struct mg_zone *z, size_t d)
{
	return z->after ? z->edge + d - 1 : z->edge - d;
}

/* Marks the bytes `from` to `to` bytes out (inclusive). */
static void mark(const struct mg_zone *z, size_t from, size_t to, enum mark how)
{
	unsigned char *p = z->after ? zone_byte(z, from) : zone_byte(z, to);
	size_t n = to - from + 1;

	/* Where valgrind has no port (riscv64), its header defines NVALGRIND
	 * and the requests drop their arguments. */
	(void)p, (void)n;
	switch (how) {
	case MARK_NOACCESS: (void)VALGRIND_MAKE_MEM_NOACCESS(p, n); break;
	case MARK_DEFINED: (void)VALGRIND_MAKE_MEM_DEFINED(p, n); break;
	case MARK_UNDEFINED: (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n); break;
	}
}

/* Separate buffers: the source's sides inside its read-only view, then the
 * destination's red zones. memmove in one buffer: the sides of the region
 * both pointers move in. The compared window already holds the red zones,
 * clipped to the arena. Sides past the end come first, so a variant that
 * strays both ways is blamed for its over-read, the commoner bug. */
static void fence_case(struct mg_memcheck *m, const struct mg_sandbox *sb, const struct mg_case *c,
		       const struct mg_layout *at)
{
	unsigned char *lo = at->dst, *hi = at->dst + c->len;
	unsigned char *win_end = at->win + at->win_len;

	if (mg_op_has_src(c->variant->op) && !c->overlap) {
		unsigned char *arena = sb->src_ro[c->src_above];
		unsigned char *end = at->src + c->len;
		zone_add(m, end, at_most_redzone((size_t)(arena + sb->arena - end)), 1, MG_BUFFER_SRC);
		zone_add(m, at->src, at_most_redzone((size_t)(at->src - arena)), 0, MG_BUFFER_SRC);
	}
	if (c->overlap) {
		lo = at->src < at->dst ? at->src : at->dst;
		hi = (at->src < at->dst ? at->dst : at->src) + c->len;
	}
	zone_add(m, hi, (size_t)(win_end - hi), 1, MG_BUFFER_DST);
	zone_add(m, lo, (size_t)(lo - at->win), 0, MG_BUFFER_DST);
}

void mg_memcheck_arm_slow(struct mg_memcheck *m, const struct mg_sandbox *sb,
			  const struct mg_case *c, const struct mg_layout *at, int clean_int)
{
	if (!mg_memcheck_running())
		return;
	m->zones = 0;
	m->clean_int = clean_int;
	/* Zero length: the pointers are in guard pages already. */
	if (c->len)
		fence_case(m, sb, c, at);
	for (unsigned i = 0; i < m->zones; i++)
		mark(&m->zone[i], 1, m->zone[i].room, MARK_NOACCESS);
	m->errors_before = VALGRIND_COUNT_ERRORS;
}

void mg_memcheck_disarm_slow(struct mg_memcheck *m)
{
	unsigned errors = VALGRIND_COUNT_ERRORS;

	/* The arenas are mapped memory the harness filled: defined bytes. */
	for (unsigned i = 0; i < m->zones; i++)
		mark(&m->zone[i], 1, m->zone[i].room, MARK_DEFINED);
	m->tripped = errors != m->errors_before;
}

static void call_again(const struct mg_memcheck *m, const struct mg_outcome *first)
{
	struct mg_outcome o;

	o.c = first->c;
	mg_outcome_call(&o, first->dst, first->src, m->clean_int);
	/* Bytes it loaded from a zone made undefined stay in its vector
	 * registers: not memgate's to be blamed for (cpu.h). */
	mg_cpu_define_vectors();
}

/* memcheck's errors in one more call, with the bytes `from` to `to` bytes
 * out of zone `z` fenced (none if z is NULL). */
static unsigned errors_in_call(const struct mg_memcheck *m, const struct mg_outcome *first,
			       const struct mg_zone *z, size_t from, size_t to)
{
	unsigned before, after;

	if (z)
		mark(z, from, to, MARK_NOACCESS);
	before = VALGRIND_COUNT_ERRORS;
	call_again(m, first);
	after = VALGRIND_COUNT_ERRORS;
	if (z)
		mark(z, from, to, MARK_DEFINED);
	return after - before;
}

/* Does the call touch the bytes `from` to `to` bytes out? It does if they
 * add errors to those it makes unfenced (memcheck counts every repeat). */
static int touches(const struct mg_memcheck *m, const struct mg_outcome *first,
		   const struct mg_zone *z, size_t from, size_t to)
{
	return errors_in_call(m, first, z, from, to) > m->unfenced;
}

/* The nearest byte touched: the one a guard page right there would catch. */
static size_t nearest(const struct mg_memcheck *m, const struct mg_outcome *first,
		      const struct mg_zone *z)
{
	size_t lo = 1, hi = z->room;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (touches(m, first, z, 1, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static size_t farthest(const struct mg_memcheck *m, const struct mg_outcome *first,
		       const struct mg_zone *z, size_t near)
{
	size_t lo = near, hi = z->room;

	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;
		if (touches(m, first, z, mid, z->room))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* A write the red-zone compare missed put back the byte that was there. To
 * tell it from a read, the touched bytes are made undefined (but
 * addressable) for one more call: a store of source bytes defines them,
 * a load does not. Returns the distance of the nearest byte written, or 0. */
static size_t nearest_written(const struct mg_memcheck *m, const struct mg_outcome *first,
			      const struct mg_zone *z, size_t near, size_t far)
{
	unsigned char vbits[MG_REDZONE];
	size_t written = 0;

	mark(z, near, far, MARK_UNDEFINED);
	call_again(m, first);
	if (VALGRIND_GET_VBITS(z->after ? zone_byte(z, near) : zone_byte(z, far), vbits,
			       far - near + 1) == 1)
		for (size_t d = far; d >= near; d--)
			if (vbits[z->after ? d - near : far - d] == 0)
				written = d;
	mark(z, near, far, MARK_DEFINED);
	return written;
}

/* The smallest naturally aligned block (a power of two, at most
 * ALIGNED_BLOCK_MAX) that holds both bytes; 0 if none does. */
static unsigned aligned_block(const unsigned char *a, const unsigned char *b)
{
	for (uintptr_t size = 2; size <= ALIGNED_BLOCK_MAX; size *= 2)
		if ((uintptr_t)a / size == (uintptr_t)b / size)
			return (unsigned)size;
	return 0;
}

/* The buffer's byte next to the zone: its last (after) or first. */
static const unsigned char *edge_byte(const struct mg_zone *z)
{
	return z->after ? z->edge - 1 : z->edge;
}

enum overread_level { OVERREAD_FAULTS, OVERREAD_FAILS, OVERREAD_WARNS };

/* How a read out to `far` bytes from the zone's edge is judged: it can
 * fault (it leaves every aligned block holding a buffer byte), or it stays
 * in one, which is a warning on x86 and a failure on aarch64 when it
 * crosses an MTE granule, or under --overread=strict. */
static enum overread_level overread_level(const struct mg_zone *z, size_t far, unsigned *width)
{
	*width = aligned_block(edge_byte(z), zone_byte(z, far));
	if (*width == 0)
		return OVERREAD_FAULTS;
#if defined(__aarch64__)
	if (*width > MTE_GRANULE)
		return OVERREAD_FAILS;
#endif
	return mg_overread_strict ? OVERREAD_FAILS : OVERREAD_WARNS;
}

static void note_overread(struct mg_overread *r, const struct mg_zone *z, size_t far, unsigned width)
{
	r->buffer = -1; /* set with the verdict's own fields when it is one */
	r->side = z->after ? MG_SIDE_PAST_END : MG_SIDE_BEFORE;
	r->distance = (long long)far;
	r->width = width;
}

/* An aligned over-read judged a failure: the fault's words, its class. */
static void fail_aligned(struct mg_verdict *out, const struct mg_zone *z, size_t far, unsigned width)
{
	out->cls = MG_ALIGNED_OVERREAD;
	note_overread(&out->overread, z, far, width);
	out->overread.buffer = (int)z->buffer;
#if defined(__aarch64__)
	if (width > MTE_GRANULE)
		mg_verdict_say(out, "; within an aligned %u-byte block, but across a %d-byte MTE "
				    "granule: faults under MTE", width, MTE_GRANULE);
	else
#endif
		mg_verdict_say(out, "; within an aligned %u-byte block holding a buffer byte "
				    "(--overread=strict)", width);
}

/* Words it the way the engine words a fault at that byte, then says how. */
static void blame_zone(const struct mg_memcheck *m, const struct mg_outcome *first,
		       const struct mg_zone *z, size_t near, size_t far, struct mg_verdict *out)
{
	size_t written = nearest_written(m, first, z, near, far);
	struct mg_outcome o = *first;
	unsigned width;

	memset(&o.fault, 0, sizeof o.fault);
	o.fault.signo = SIGSEGV;
	o.fault.addr = zone_byte(z, written ? written : near);
	o.fault.access = written ? MG_ACCESS_WRITE : MG_ACCESS_READ;
	mg_outcome_fault(&o, 1, out);
	out->memcheck = 1;
	if (written)
		mg_verdict_say(out, " (memcheck: written with the value it held)");
	else if (far > near)
		mg_verdict_say(out, " (memcheck: reads up to %zu bytes %s)", far,
			       z->after ? "past the end" : "before it");
	else
		mg_verdict_say(out, " (memcheck)");
	if (!written && overread_level(z, far, &width) == OVERREAD_FAILS)
		fail_aligned(out, z, far, width);
}

/* A read of the zone that stays in an aligned block with a buffer byte, and
 * is only a warning: noted in `out`, which stays as it is otherwise. */
static int only_warns(const struct mg_memcheck *m, const struct mg_outcome *first,
		      const struct mg_zone *z, size_t near, size_t far, struct mg_verdict *out)
{
	unsigned width;

	if (overread_level(z, far, &width) != OVERREAD_WARNS || nearest_written(m, first, z, near, far))
		return 0;
	if (!(out->warnings & MG_WARN_ALIGNED_OVERREAD) || width > out->overread.width) {
		note_overread(&out->overread, z, far, width);
		out->overread.buffer = (int)z->buffer;
	}
	out->warnings |= MG_WARN_ALIGNED_OVERREAD;
	return 1;
}

int mg_memcheck_blame_slow(const struct mg_memcheck *m, const struct mg_outcome *call,
			   struct mg_verdict *out)
{
	struct mg_memcheck base;
	int warned = 0;

	if (!m->tripped)
		return 0;
	base = *m;
	base.unfenced = errors_in_call(m, call, NULL, 0, 0);
	for (unsigned i = 0; i < m->zones; i++) {
		const struct mg_zone *z = &m->zone[i];
		size_t near, far;

		if (!touches(&base, call, z, 1, z->room))
			continue;
		near = nearest(&base, call, z);
		far = farthest(&base, call, z, near);
		if (only_warns(&base, call, z, near, far, out)) {
			warned = 1;
			continue;
		}
		blame_zone(&base, call, z, near, far, out);
		return 1;
	}
	/* Every error the call made is then one of the warnings, unless it
	 * makes some with no fence at all (elsewhere). */
	if (warned && base.unfenced == 0)
		return 0;
	mg_verdict_set(out, MG_OOB_READ,
		       "elsewhere, not within %u bytes of the buffers: memcheck saw an invalid "
		       "access during the call (on the stack? see its report)",
		       MG_REDZONE);
	out->memcheck = 1;
	return 1;
}
