/* Arenas with PROT_NONE guard pages on both sides, mapped once. The source
 * arena is one memfd mapped three times: twice read-only, below and above the
 * destination arena, where variants read it (a write to the source faults,
 * and memmove meets both orders), and once writable, where the harness fills
 * it. So no case needs a system call. The memfd is sealed, so a variant
 * cannot make its view writable; and the expected bytes come from the pool
 * (below), never from memory the variant is given. */
#include "sandbox.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Without its memory the harness cannot judge anything: exit 2, as every
 * command does when it could not judge (a parent reads it as an error). */
static void die(const char *what)
{
	fprintf(stderr, "memgate: could not judge: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* One reservation, all PROT_NONE at first: three arenas with a guard page
 * on each side of each: [g] src below [g] dst [g] src above [g]. */
static unsigned char *reserve_arenas(size_t arena)
{
	void *p = mmap(NULL, 3 * arena + 4 * MG_PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		die("mmap (guarded arenas)");
	return (unsigned char *)p + MG_PAGE;
}

/* The writable view comes first: then the memfd is sealed against future
 * writes, so no new writable mapping of it can be made and the read-only
 * views, mapped after the seal, cannot be mprotect()ed writable (EACCES): a
 * write to the source faults whatever the variant does. Where sealing is
 * unavailable (or MEMGATE_TEST_UNSEALED is set, for the tests) the views are
 * merely read-only, and check.c compares the source after every call. */
static void map_source_views(struct mg_sandbox *sb, int fd)
{
	sb->src_rw = mmap(NULL, sb->arena, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sb->src_rw == MAP_FAILED)
		die("mmap (writable source view)");
	sb->src_sealed = !getenv("MEMGATE_TEST_UNSEALED") &&
			 fcntl(fd, F_ADD_SEALS,
			       F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
	for (int i = 0; i < 2; i++)
		if (mmap(sb->src_ro[i], sb->arena, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED)
			die("mmap (read-only source view)");
}

static void map_arenas(struct mg_sandbox *sb)
{
	unsigned char *base = reserve_arenas(sb->arena);
	int fd = memfd_create("memgate-src", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	sb->src_ro[MG_SRC_BELOW] = base;
	sb->dst = base + sb->arena + MG_PAGE;
	sb->src_ro[MG_SRC_ABOVE] = sb->dst + sb->arena + MG_PAGE;
	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, (off_t)sb->arena) != 0)
		die("ftruncate");
	map_source_views(sb, fd);
	close(fd);
	if (mprotect(sb->dst, sb->arena, PROT_READ | PROT_WRITE) != 0)
		die("mprotect (destination arena)");
}

/* Fixed content, so a fill seed means the same bytes in every run. */
static void fill_pool(uint64_t *pool, size_t size)
{
	struct mg_rng rng = {0x6d656d67617465ull}; /* "memgate" */

	for (size_t i = 0; i < size / sizeof *pool; i++)
		pool[i] = mg_rng_next(&rng);
}

/* The shadow, where the reference runs, then the pool, in one mapping. The
 * pool is read-only once made: the expected bytes come from it, and a stray
 * write should fault rather than change them. Being above the shadow, it
 * makes the reference memmove copy forward, which measured a quarter faster
 * here than its backward loop. */
static void map_shadow_and_pool(struct mg_sandbox *sb)
{
	size_t shadow_size = sb->arena + MG_PAGE; /* + room to shift copies in a page */
	unsigned char *p = mmap(NULL, shadow_size + sb->pool_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap (shadow and random pool)");
	sb->shadow = p;
	fill_pool((uint64_t *)(p + shadow_size), sb->pool_size);
	if (mprotect(p + shadow_size, sb->pool_size, PROT_READ) != 0)
		die("mprotect (random pool)");
	sb->pool = p + shadow_size;
}

const struct mg_sandbox *mg_sandbox_get(void)
{
	static struct mg_sandbox sb;

	if (sb.dst)
		return &sb;
	sb.arena = MG_MAX_LEN + MG_ARENA_SLACK;
	sb.pool_size = sb.arena + MG_PAGE;
	map_arenas(&sb);
	map_shadow_and_pool(&sb);
	return &sb;
}

/* A zero-length call gets pointers into the middle of guard pages, so
 * touching them, or bytes near them, faults. */
static void place_zero_length(const struct mg_sandbox *sb, const struct mg_case *c,
			      struct mg_layout *out)
{
	unsigned char *guard_middle = sb->dst - MG_PAGE / 2;
	long d = c->dist;

	if (c->overlap && labs(d) < (long)(MG_PAGE / 2 - MG_ALIGN_MOD)) {
		out->src = (unsigned char *)mg_lowest_at((uintptr_t)guard_middle - d / 2,
							 c->src_align);
		out->dst = out->src + d;
	} else {
		out->src = sb->src_ro[c->src_above] - MG_PAGE / 2 + c->src_align;
		out->dst = guard_middle + c->dst_align;
	}
	out->src_rw = NULL;
	out->win = out->dst;
	out->win_len = 0;
}

static size_t page_round_up(size_t n)
{
	return (n + MG_PAGE - 1) & ~(size_t)(MG_PAGE - 1);
}

/* A straddling pointer: `split` bytes before a page boundary inside
 * [lo, hi) (page aligned), with `below` bytes of its region before it and
 * `above` from it on; the boundary nearest the guard page the case asks for. */
static unsigned char *straddle_at(unsigned char *lo, unsigned char *hi, size_t below, size_t above,
				  size_t split, enum mg_place place)
{
	if (place == MG_PLACE_AFTER)
		return hi - page_round_up(above - split) - split;
	return lo + page_round_up(below + split) - split;
}

/* Where a separate buffer of the case goes in its arena [lo, hi). */
static unsigned char *place_separate(const struct mg_case *c, unsigned char *lo, unsigned char *hi,
				     int straddles, unsigned align)
{
	if (straddles)
		return straddle_at(lo, hi, 0, c->len, c->spot_arg, c->place);
	return mg_place_buffer(lo, hi, 0, c->len, align, c->place);
}

/* page-diff: dst at the page offset that makes (dst - src) mod 4096 the
 * case's, as near the guard page as that allows. */
static unsigned char *place_page_diff(const struct mg_case *c, unsigned char *lo, unsigned char *hi,
				      const unsigned char *src)
{
	size_t want = ((uintptr_t)src + c->spot_arg) & (MG_PAGE - 1);

	if (c->place == MG_PLACE_BEFORE)
		return lo + want;
	return hi - page_round_up(c->len + want) + want;
}

/* memmove's one buffer: src, or dst when that straddles, is the anchor. */
static unsigned char *place_overlap_src(const struct mg_sandbox *sb, const struct mg_case *c,
					size_t below, size_t above)
{
	unsigned char *lo = sb->dst, *hi = sb->dst + sb->arena;

	if (c->spot == MG_SPOT_STRADDLE_SRC)
		return straddle_at(lo, hi, below, above, c->spot_arg, c->place);
	if (c->spot == MG_SPOT_STRADDLE_DST)
		return straddle_at(lo, hi, below + c->dist, above - c->dist, c->spot_arg,
				   c->place) -
		       c->dist;
	return mg_place_buffer(lo, hi, below, above, c->src_align, c->place);
}

void mg_sandbox_place(const struct mg_sandbox *sb, const struct mg_case *c, struct mg_layout *out)
{
	if (c->len == 0) {
		place_zero_length(sb, c, out);
		return;
	}
	if (c->overlap) {
		size_t below = c->dist < 0 ? (size_t)-c->dist : 0;
		size_t above = (c->dist > 0 ? (size_t)c->dist : 0) + c->len;
		out->src = place_overlap_src(sb, c, below, above);
		out->src_rw = out->src;
		out->dst = out->src + c->dist;
		mg_sandbox_window(sb, out->src - below, out->src + above, out);
		return;
	}
	if (c->spot == MG_SPOT_GUARD) {
		mg_sandbox_place_apart(sb, c, out);
		return;
	}
	unsigned char *src_arena = sb->src_ro[c->src_above];
	out->src = place_separate(c, src_arena, src_arena + sb->arena,
				  mg_spot_straddles_src(c->spot), c->src_align);
	out->src_rw = sb->src_rw + (out->src - src_arena);
	if (c->spot == MG_SPOT_PAGE_DIFF)
		out->dst = place_page_diff(c, sb->dst, sb->dst + sb->arena, out->src);
	else
		out->dst = place_separate(c, sb->dst, sb->dst + sb->arena,
					  mg_spot_straddles_dst(c->spot), c->dst_align);
	mg_sandbox_window(sb, out->dst, out->dst + c->len, out);
}
