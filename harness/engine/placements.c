/* The remote spots' mappings, and the placement stage's cases. */
#include "placements.h"
#include "rng.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Each buffer's region: room for MG_SPOT_MAX_LEN twice over (a memmove's
 * distance) and the red zones. */
#define REGION ((size_t)64 << 10)
/* Between the two buffers of split-2gib, so neither's red zones reach the
 * other: they share one mapping across 0x80000000. */
#define GAP (2 * MG_REDZONE)
#define TWO_GIB ((uintptr_t)0x80000000u)

/* One reservation: a guard page, two regions (adjacent, or far apart), a
 * guard page; only the regions are mapped read-write. */
struct area {
	unsigned char *lo, *hi;
	unsigned char *region[2];
	int tried, ok;
	char why[160];
};

static struct area two_gib, far_apart, four_gib;

static int area_fail(struct area *a, const char *what)
{
	snprintf(a->why, sizeof a->why, "%s: %s", what, strerror(errno));
	return 0;
}

/* The region [TWO_GIB - REGION, TWO_GIB + REGION), exactly there. */
static int map_two_gib(struct area *a)
{
#ifdef MAP_FIXED_NOREPLACE
	size_t size = 2 * REGION + 2 * MG_PAGE;
	unsigned char *want = (unsigned char *)(TWO_GIB - REGION - MG_PAGE);
	void *p = mmap(want, size, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return area_fail(a, "cannot map 0x80000000 +- 64 KiB (MAP_FIXED_NOREPLACE)");
	if (p != want) { /* a kernel that ignores the flag put it elsewhere */
		munmap(p, size);
		errno = EEXIST;
		return area_fail(a, "cannot map 0x80000000 +- 64 KiB (MAP_FIXED_NOREPLACE)");
	}
	a->lo = want;
	a->hi = want + size;
	a->region[0] = want + MG_PAGE;
	a->region[1] = a->region[0] + REGION;
	if (mprotect(a->region[0], 2 * REGION, PROT_READ | PROT_WRITE) != 0)
		return area_fail(a, "mprotect (0x80000000 +- 64 KiB)");
	return 1;
#else
	snprintf(a->why, sizeof a->why, "this C library has no MAP_FIXED_NOREPLACE");
	return 0;
#endif
}

/* Two regions whose starts are 4 GiB + REGION apart, the gap unmapped. */
static int map_far_apart(struct area *a)
{
#if UINTPTR_MAX > 0xffffffffu
	size_t four_gib = (size_t)((uint64_t)1 << 32);
	size_t size = 2 * MG_PAGE + 2 * REGION + four_gib;
	void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return area_fail(a, "cannot reserve 4 GiB of address space");
	a->lo = p;
	a->hi = a->lo + size;
	a->region[0] = a->lo + MG_PAGE;
	a->region[1] = a->region[0] + REGION + four_gib;
	if (mprotect(a->region[0], REGION, PROT_READ | PROT_WRITE) != 0 ||
	    mprotect(a->region[1], REGION, PROT_READ | PROT_WRITE) != 0)
		return area_fail(a, "mprotect (buffers 4 GiB apart)");
	return 1;
#else
	snprintf(a->why, sizeof a->why, "a 32-bit address space has no room 4 GiB apart");
	return 0;
#endif
}

/* Where span-4gib's two regions go: around two consecutive multiples of
 * 4 GiB, the first of these that no mapping holds yet (both well above
 * 4 GiB, and below the 47-bit user space of x86-64 and the 48-bit one of
 * aarch64). The reservation is 4 GiB and more of address space; only the
 * regions are mapped read-write. */
static int map_four_gib(struct area *a)
{
#if UINTPTR_MAX > 0xffffffffu && defined(MAP_FIXED_NOREPLACE)
	static const uint64_t span4_candidates[] = {0x4000000000ull, 0x1000000000ull,
						    0x200000000ull};
	size_t four = (size_t)((uint64_t)1 << 32);
	size_t size = four + 2 * REGION + 2 * MG_PAGE;

	for (size_t i = 0; i < sizeof span4_candidates / sizeof span4_candidates[0]; i++) {
		unsigned char *boundary = (unsigned char *)(uintptr_t)span4_candidates[i];
		unsigned char *want = boundary - REGION - MG_PAGE;
		void *p = mmap(want, size, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
			       -1, 0);
		if (p == MAP_FAILED)
			continue;
		if (p != want) { /* a kernel that ignores the flag put it elsewhere */
			munmap(p, size);
			errno = EEXIST;
			continue;
		}
		a->lo = want;
		a->hi = want + size;
		a->region[0] = boundary - REGION;
		a->region[1] = boundary + four - REGION;
		if (mprotect(a->region[0], 2 * REGION, PROT_READ | PROT_WRITE) != 0 ||
		    mprotect(a->region[1], 2 * REGION, PROT_READ | PROT_WRITE) != 0)
			return area_fail(a, "mprotect (around a multiple of 4 GiB)");
		return 1;
	}
	return area_fail(a, "cannot map around 0x4000000000, 0x1000000000 or 0x200000000 and "
			    "4 GiB above (MAP_FIXED_NOREPLACE)");
#else
	snprintf(a->why, sizeof a->why,
		 "span-4gib needs a 64-bit address space and MAP_FIXED_NOREPLACE");
	return 0;
#endif
}

static struct area *area_of(enum mg_spot spot)
{
	struct area *a = spot == MG_SPOT_FAR	     ? &far_apart
			 : spot == MG_SPOT_SPAN_4GIB ? &four_gib
						     : &two_gib;

	if (!a->tried) {
		a->tried = 1;
		a->ok = spot == MG_SPOT_FAR	    ? map_far_apart(a)
			: spot == MG_SPOT_SPAN_4GIB ? map_four_gib(a)
						    : map_two_gib(a);
	}
	return a;
}

int mg_placements_possible(enum mg_spot spot, char *why, size_t size)
{
	struct area *a = area_of(spot);

	if (!a->ok)
		snprintf(why, size, "%s", a->why);
	return a->ok;
}

bool mg_placements_owns(const void *addr)
{
	const unsigned char *p = addr;

	return (two_gib.ok && p >= two_gib.lo && p < two_gib.hi) ||
	       (far_apart.ok && p >= far_apart.lo && p < far_apart.hi) ||
	       (four_gib.ok && p >= four_gib.lo && p < four_gib.hi);
}

/* The compared window: the buffer(s) plus red zones, inside [lo, hi). */
static void set_window(unsigned char *from, unsigned char *to, unsigned char *lo,
		       unsigned char *hi, struct mg_layout *out)
{
	out->win = from - lo > (ptrdiff_t)MG_REDZONE ? from - MG_REDZONE : lo;
	to = hi - to > (ptrdiff_t)MG_REDZONE ? to + MG_REDZONE : hi;
	out->win_len = (size_t)(to - out->win);
}

/* memmove's one buffer across 0x80000000, its lower pointer spot_arg below. */
static void place_span(const struct mg_case *c, struct area *a, struct mg_layout *out)
{
	unsigned char *lower = (unsigned char *)TWO_GIB - c->spot_arg;
	size_t d = (size_t)labs(c->dist);

	out->src = c->dist > 0 ? lower : lower + d;
	out->dst = out->src + c->dist;
	set_window(lower, lower + d + c->len, a->region[0], a->region[1] + REGION, out);
}

/* Separate buffers: the lower as high in the lower region as its alignment
 * allows, the upper as low in the upper one; the source lower unless
 * src_above. */
static void place_apart(const struct mg_case *c, struct area *a, struct mg_layout *out)
{
	unsigned lower_align = c->src_above ? c->dst_align : c->src_align;
	unsigned upper_align = c->src_above ? c->src_align : c->dst_align;
	unsigned char *lower = mg_place_buffer(a->region[0], a->region[0] + REGION - GAP, 0, c->len,
					       lower_align, MG_PLACE_AFTER);
	unsigned char *upper = mg_place_buffer(a->region[1] + GAP, a->region[1] + REGION, 0, c->len,
					       upper_align, MG_PLACE_BEFORE);
	int dst_region = !c->src_above;

	out->src = c->src_above ? upper : lower;
	out->dst = c->src_above ? lower : upper;
	set_window(out->dst, out->dst + c->len, a->region[dst_region],
		   a->region[dst_region] + REGION, out);
}

/* span-4gib: each buffer spot_arg bytes below the middle of its region (a
 * multiple of 4 GiB); memmove's one buffer, its lower pointer, in the
 * first region. */
static void place_span4(const struct mg_case *c, struct area *a, struct mg_layout *out)
{
	size_t d = (size_t)labs(c->dist);
	unsigned char *at[2] = {a->region[0] + REGION - c->spot_arg,
				a->region[1] + REGION - c->spot_arg};
	int dst_region = c->overlap ? 0 : !c->src_above;

	if (c->overlap) {
		out->src = c->dist > 0 ? at[0] : at[0] + d;
		out->dst = out->src + c->dist;
		set_window(at[0], at[0] + d + c->len, a->region[0], a->region[0] + 2 * REGION, out);
		return;
	}
	out->src = at[c->src_above];
	out->dst = at[dst_region];
	set_window(out->dst, out->dst + c->len, a->region[dst_region],
		   a->region[dst_region] + 2 * REGION, out);
}

bool mg_placements_place(const struct mg_case *c, struct mg_layout *out)
{
	struct area *a = area_of(c->spot);

	if (!a->ok)
		return false;
	if (c->spot == MG_SPOT_SPAN_4GIB)
		place_span4(c, a, out);
	else if (c->spot == MG_SPOT_SPAN_2GIB)
		place_span(c, a, out);
	else
		place_apart(c, a, out);
	out->src_rw = out->src;
	return true;
}
