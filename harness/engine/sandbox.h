/* The guard-page sandbox: arenas mapped once, reused by every case. */
#ifndef MG_SANDBOX_H
#define MG_SANDBOX_H

#include "case.h"

#include <stddef.h>

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

/* Where a buffer with `below` bytes of its region before it and `above` from
 * it on goes in [lo, hi): as high (MG_PLACE_AFTER) or as low as its
 * alignment mod 64 allows. */
unsigned char *mg_place_buffer(unsigned char *lo, unsigned char *hi, size_t below, size_t above,
			       unsigned align, enum mg_place place);

/* Computes where the buffers of a valid case go. */
void mg_sandbox_place(const struct mg_sandbox *sb, const struct mg_case *c, struct mg_layout *out);

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
