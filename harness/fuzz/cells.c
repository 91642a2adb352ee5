#include "cells.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer reads counters in this section after every input, as if they
 * were edges (Linux only; elsewhere the array is just unused). */
__attribute__((used,
	       section("__libfuzzer_extra_counters"))) static uint8_t extra_counters[MG_CELL_LIMIT];

/* AFL++'s coverage map, in an afl-clang-fast build. Its compiler pass makes
 * its own declaration of __afl_area_ptr and would rename ours, so the map is
 * looked up at run time (the AFL++ targets link with -rdynamic). */
struct afl_map {
	uint8_t **area;
	uint32_t *size;
};

static struct afl_map afl_map(void)
{
	static struct afl_map map;
#ifdef __AFL_COMPILER
	static int looked;

	if (!looked) {
		looked = 1;
		map.area = dlsym(RTLD_DEFAULT, "__afl_area_ptr");
		map.size = dlsym(RTLD_DEFAULT, "__afl_map_size");
	}
#endif
	return map;
}

static unsigned align_class(unsigned align)
{
	if (align == 0)
		return 0;
	return align % 8 == 0 ? 1 : 2;
}

/* memcpy and memset: which side the source is on (0 for memset). memmove
 * adds: same address, dst below src overlapping, dst above overlapping, and
 * adjacent without overlap. */
static unsigned overlap_class(const struct mg_case *c)
{
	size_t d;

	if (!c->overlap)
		return c->src_above ? 1 : 0;
	if (c->dist == 0)
		return 2;
	d = (size_t)(c->dist < 0 ? -c->dist : c->dist);
	if (d >= c->len)
		return 5;
	return c->dist < 0 ? 3 : 4;
}

/* Where the buffers are (docs/design.md, "Placements"): guard pages, a
 * straddle of dst, of src or of both, page-diff. memset has the first two.
 * The remote spots are no fuzz input; they count as guard. */
static unsigned spot_class(const struct mg_case *c)
{
	switch (c->spot) {
	case MG_SPOT_STRADDLE_DST: return 1;
	case MG_SPOT_STRADDLE_SRC: return 2;
	case MG_SPOT_STRADDLE_BOTH: return 3;
	case MG_SPOT_PAGE_DIFF: return 4;
	default: return 0;
	}
}

unsigned mg_cell_of(const struct mg_target *t, const struct mg_case *c)
{
	enum mg_op op = c->variant->op;
	unsigned variant = 0, cell;
	/* Only the classes the family can have, so the cells stay few: every
	 * cell libFuzzer keeps is scanned and cleared after every input. */
	unsigned overlaps = op == MG_MEMMOVE ? 6 : mg_op_has_src(op) ? 2 : 1;
	unsigned src_aligns = mg_op_has_src(op) ? 3 : 1;
	unsigned spots = mg_op_has_src(op) ? 5 : 2;

	for (unsigned i = 0; i < t->count; i++)
		if (t->pool[i] == c->variant)
			variant = i;
	cell = variant * MG_LEN_CLASSES + mg_len_class(c->len);
	cell = cell * src_aligns + (src_aligns > 1 ? align_class(c->src_align) : 0);
	cell = cell * 3 + align_class(c->dst_align);
	cell = cell * overlaps + (overlaps > 1 ? overlap_class(c) : 0);
	cell = cell * 2 + (c->place == MG_PLACE_BEFORE);
	/* Last, so cells that differ only in the spot are neighbours: distinct
	 * counters even past MG_CELL_LIMIT. */
	cell = cell * spots + spot_class(c) % spots;
	return cell % MG_CELL_LIMIT;
}

static int cells_enabled(void)
{
	static int enabled = -1;

	if (enabled < 0) {
		const char *env = getenv("MEMGATE_CELLS");
		enabled = !(env && strcmp(env, "0") == 0);
	}
	return enabled;
}

void mg_cells_mark(const struct mg_target *t, const struct mg_case *c)
{
	unsigned cell;

	if (!cells_enabled())
		return;
	cell = mg_cell_of(t, c);
	extra_counters[cell]++;
	struct afl_map afl = afl_map();
	if (afl.area && *afl.area && afl.size && *afl.size)
		(*afl.area)[(cell * 2654435761u) % *afl.size]++;
}
