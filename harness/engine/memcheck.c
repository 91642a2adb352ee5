/* Fences around the buffers under memcheck, and naming what crossed them.
 *
 * memcheck's client requests only say how many errors it has seen, not
 * where, so a rise in the count is located by calling the variant again:
 * the same pointers and length make the same accesses, whatever the bytes. */
#include "memcheck.h"

#include <signal.h>
#include <stdio.h>
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

int mg_memcheck_on = -1;

enum mark { MARK_NOACCESS, MARK_DEFINED, MARK_UNDEFINED };

static size_t at_most_redzone(size_t n)
{
	return n < MG_REDZONE ? n : MG_REDZONE;
}

static void zone_add(struct mg_memcheck *m, unsigned char *edge, size_t room, int after)
{
	if (room == 0)
		return;
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
		zone_add(m, end, at_most_redzone((size_t)(arena + sb->arena - end)), 1);
		zone_add(m, at->src, at_most_redzone((size_t)(at->src - arena)), 0);
	}
	if (c->overlap) {
		lo = at->src < at->dst ? at->src : at->dst;
		hi = (at->src < at->dst ? at->dst : at->src) + c->len;
	}
	zone_add(m, hi, (size_t)(win_end - hi), 1);
	zone_add(m, lo, (size_t)(lo - at->win), 0);
}

void mg_memcheck_arm_slow(struct mg_memcheck *m, const struct mg_sandbox *sb,
			  const struct mg_case *c, const struct mg_layout *at, int clean_int)
{
	if (mg_memcheck_on < 0)
		mg_memcheck_on = RUNNING_ON_VALGRIND != 0;
	if (!mg_memcheck_on)
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

/* Words it the way the engine words a fault at that byte, then says how. */
static void blame_zone(const struct mg_memcheck *m, const struct mg_outcome *first,
		       const struct mg_zone *z, struct mg_verdict *out)
{
	size_t near = nearest(m, first, z), far = farthest(m, first, z, near);
	size_t written = nearest_written(m, first, z, near, far);
	struct mg_outcome o = *first;

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
}

int mg_memcheck_blame_slow(const struct mg_memcheck *m, const struct mg_outcome *call,
			   struct mg_verdict *out)
{
	struct mg_memcheck base;

	if (!m->tripped)
		return 0;
	base = *m;
	base.unfenced = errors_in_call(m, call, NULL, 0, 0);
	for (unsigned i = 0; i < m->zones; i++)
		if (touches(&base, call, &m->zone[i], 1, m->zone[i].room)) {
			blame_zone(&base, call, &m->zone[i], out);
			return 1;
		}
	mg_verdict_set(out, MG_OOB_READ,
		       "elsewhere, not within %u bytes of the buffers: memcheck saw an invalid "
		       "access during the call (on the stack? see its report)",
		       MG_REDZONE);
	out->memcheck = 1;
	return 1;
}
