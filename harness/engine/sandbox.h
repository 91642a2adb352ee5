/* The guard-page sandbox: arenas mapped once, reused by every case. */
#ifndef MG_SANDBOX_H
#define MG_SANDBOX_H

#include "case.h"

#include <stddef.h>
#include <stdint.h>

#define MG_PAGE 4096u
/* Bytes checked on each side of the destination for stray writes. */
#define MG_REDZONE 128u

/* The source memory is seen twice read-only, once below the destination
 * arena and once above it, so cases can run with the source on either side
 * (memmove picks its direction from that). */
enum { MG_SRC_BELOW, MG_SRC_ABOVE };

struct mg_sandbox {
	unsigned char *src_ro[2];  /* the source arena as variants see it, below
				      and above dst: read-only views */
	unsigned char *src_rw;	   /* the same memory, writable, for setting up */
	unsigned char *dst;	   /* destination arena (and memmove's one buffer) */
	unsigned char *shadow;	   /* plain memory where the reference runs */
	const unsigned char *pool; /* random bytes that fills are cut from */
	size_t arena;		   /* bytes in each arena; a guard page on each side */
	size_t pool_size;
	int src_sealed; /* the read-only views cannot be made writable */
};

/* Where one case's buffers are. */
struct mg_layout {
	unsigned char *src;    /* the variant's source (read-only unless overlapping) */
	unsigned char *src_rw; /* writable alias of src, for filling */
	unsigned char *dst;
	unsigned char *win; /* the compared window: dst plus red zones, or the */
	size_t win_len;	    /* whole memmove region plus red zones */
};

/* Maps the arenas; the result lives until the process ends. Exits with a
 * message if the memory cannot be had. */
const struct mg_sandbox *mg_sandbox_get(void);

/* The lowest address >= lo, and the highest <= hi, that is `align` mod 64. */
static inline uintptr_t mg_lowest_at(uintptr_t lo, unsigned align)
{
	return lo + ((align - lo) & (MG_ALIGN_MOD - 1));
}

static inline uintptr_t mg_highest_at(uintptr_t hi, unsigned align)
{
	return hi - ((hi - align) & (MG_ALIGN_MOD - 1));
}

/* Where a buffer with `below` bytes of its region before it and `above` from
 * it on goes in [lo, hi): as high (MG_PLACE_AFTER) or as low as its
 * alignment mod 64 allows. */
static inline unsigned char *mg_place_buffer(unsigned char *lo, unsigned char *hi, size_t below,
					     size_t above, unsigned align, enum mg_place place)
{
	if (place == MG_PLACE_AFTER)
		return (unsigned char *)mg_highest_at((uintptr_t)(hi - above), align);
	return (unsigned char *)mg_lowest_at((uintptr_t)(lo + below), align);
}

/* The compared window of [lo, hi): MG_REDZONE bytes on each side, short of
 * the arena's ends. */
static inline void mg_sandbox_window(const struct mg_sandbox *sb, unsigned char *lo,
				     unsigned char *hi, struct mg_layout *out)
{
	unsigned char *arena_end = sb->dst + sb->arena;

	out->win = lo - sb->dst > (ptrdiff_t)MG_REDZONE ? lo - MG_REDZONE : sb->dst;
	hi = arena_end - hi > (ptrdiff_t)MG_REDZONE ? hi + MG_REDZONE : arena_end;
	out->win_len = (size_t)(hi - out->win);
}

/* The usual case, inline because it is most of every sweep and fuzz run:
 * separate source and destination at the guard pages (spot guard, len > 0,
 * no overlap), each against the guard page its placement names. */
static inline void mg_sandbox_place_apart(const struct mg_sandbox *sb, const struct mg_case *c,
					  struct mg_layout *out)
{
	unsigned char *src_arena = sb->src_ro[c->src_above];

	out->src = mg_place_buffer(src_arena, src_arena + sb->arena, 0, c->len, c->src_align,
				   c->place);
	out->src_rw = sb->src_rw + (out->src - src_arena);
	out->dst = mg_place_buffer(sb->dst, sb->dst + sb->arena, 0, c->len, c->dst_align, c->place);
	mg_sandbox_window(sb, out->dst, out->dst + c->len, out);
}

/* Computes where the buffers of a valid case go. */
void mg_sandbox_place(const struct mg_sandbox *sb, const struct mg_case *c, struct mg_layout *out);

/* mg_sandbox_place, with the usual case inline. */
static inline void mg_sandbox_place_fast(const struct mg_sandbox *sb, const struct mg_case *c,
					 struct mg_layout *out)
{
	if (c->spot == MG_SPOT_GUARD && c->len && !c->overlap)
		mg_sandbox_place_apart(sb, c, out);
	else
		mg_sandbox_place(sb, c, out);
}

static inline int mg_in_arena(const struct mg_sandbox *sb, const unsigned char *arena,
			      const void *addr)
{
	const unsigned char *p = addr;
	return p >= arena - MG_PAGE && p < arena + sb->arena + MG_PAGE;
}

/* True if `addr` lies in a source view or its guard pages. */
static inline int mg_in_src_arena(const struct mg_sandbox *sb, const void *addr)
{
	return mg_in_arena(sb, sb->src_ro[0], addr) || mg_in_arena(sb, sb->src_ro[1], addr);
}

static inline int mg_in_dst_arena(const struct mg_sandbox *sb, const void *addr)
{
	return mg_in_arena(sb, sb->dst, addr);
}

#endif
