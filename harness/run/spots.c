/* The placements stage's cases (docs/placements.md): straddles, page-diff
 * and the remote spots (placements.h) this address space allows. */
#include "spots.h"
#include "placements.h"
#include "rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emitter {
	const struct mg_variant *v;
	enum mg_profile profile;
	mg_case_fn fn;
	void *ctx;
	uint64_t seed, count;
	int stopped;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void emit(struct emitter *e, struct mg_case *c)
{
	char why[128];

	mg_case_vary_entry(c, e->count);
	if (e->stopped || !mg_case_valid(c, why, sizeof why))
		return;
	c->seed = mg_mix64(e->seed ^ (0x706c616365ull + e->count++)); /* "place" */
	e->stopped = e->fn(c, e->ctx);
}

static void emit_both_places(struct emitter *e, struct mg_case *c)
{
	c->place = MG_PLACE_AFTER;
	emit(e, c);
	c->place = MG_PLACE_BEFORE;
	emit(e, c);
	c->place = MG_PLACE_AFTER;
}

static struct mg_case base_case(const struct emitter *e, size_t len)
{
	struct mg_case c;

	memset(&c, 0, sizeof c);
	c.variant = e->v;
	c.len = len;
	c.value = 0x5a;
	c.src_align = c.dst_align = (unsigned)(-len & (MG_ALIGN_MOD - 1));
	return c;
}

/* Longer straddles: split points near each end and in the middle. */
static const size_t straddle_lengths[] = {65, 100, 127, 128, 129, 255, 256, 257, 511, 512,
					  1000, 1024, 4095, 4096, 4097, 8192, 16385, 65536};
static const size_t near_splits[] = {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};

static void straddle_at_split(struct emitter *e, size_t len, size_t split)
{
	static const enum mg_spot kinds[] = {MG_SPOT_STRADDLE_SRC, MG_SPOT_STRADDLE_DST,
					     MG_SPOT_STRADDLE_BOTH};

	for (size_t k = 0; k < N(kinds); k++)
		for (int above = 0; above < 2; above++) {
			struct mg_case c = base_case(e, len);
			c.src_above = above;
			mg_case_set_spot(&c, kinds[k], split);
			emit_both_places(e, &c);
		}
	if (e->v->op != MG_MEMMOVE)
		return;
	for (long d = -1; d <= 1; d += 2)
		for (size_t k = 0; k < 2; k++) {
			struct mg_case c = base_case(e, len);
			mg_case_set_overlap(&c, d * (long)(len < 64 ? 1 : len / 2));
			mg_case_set_spot(&c, kinds[k], split);
			emit_both_places(e, &c);
		}
}

static void sweep_straddles(struct emitter *e)
{
	size_t last = e->profile == MG_PROFILE_FULL ? N(straddle_lengths) : 12;

	for (size_t len = 2; len <= 64; len++)
		for (size_t split = 1; split < len; split++)
			straddle_at_split(e, len, split);
	for (size_t i = 0; i < last; i++) {
		size_t len = straddle_lengths[i];
		for (size_t s = 0; s < N(near_splits); s++) {
			straddle_at_split(e, len, near_splits[s]);
			straddle_at_split(e, len, len - near_splits[s]);
		}
		straddle_at_split(e, len, len / 2);
	}
}

/* Every (dst - src) mod 4096, for lengths of a page and more. */
static void sweep_page_diffs(struct emitter *e)
{
	static const size_t quick[] = {4160};
	static const size_t full[] = {4096, 4097, 8191, 65536};
	const size_t *lens = e->profile == MG_PROFILE_FULL ? full : quick;
	size_t n = e->profile == MG_PROFILE_FULL ? N(full) : N(quick);

	for (size_t i = 0; i < n; i++)
		for (size_t diff = 0; diff < MG_PAGE; diff++) {
			struct mg_case c = base_case(e, lens[i]);
			c.src_align = (unsigned)(diff * 7) & (MG_ALIGN_MOD - 1);
			c.src_above = (int)(diff & 1);
			mg_case_set_spot(&c, MG_SPOT_PAGE_DIFF, diff);
			if (e->profile == MG_PROFILE_FULL)
				emit_both_places(e, &c);
			else
				emit(e, &c);
		}
}

/* Lengths 1..4096 at the remote spots: all of them in the full profile;
 * the quick one takes 1..64 and each power of two and its neighbours. */
static int remote_length_wanted(const struct emitter *e, size_t len)
{
	if (e->profile == MG_PROFILE_FULL || len <= 64)
		return 1;
	for (size_t p = 128; p <= 4096; p *= 2)
		if (len + 1 >= p && len <= p + 1)
			return 1;
	return 0;
}

static void apart_length(struct emitter *e, enum mg_spot spot, size_t len)
{
	for (int above = 0; above < 2; above++)
		for (unsigned a = 0; a < 2; a++) {
			struct mg_case c = base_case(e, len);
			c.src_above = above;
			if (a)
				c.src_align = c.dst_align = 0;
			mg_case_set_spot(&c, spot, 0);
			emit(e, &c);
		}
}

/* memmove across 2 GiB, both directions: the lower pointer one byte, half
 * the distance, and the whole distance below 0x80000000. */
static void span_length(struct emitter *e, size_t len)
{
	const long dists[] = {1, 7, 64, (long)len / 2 + 1, (long)len - 1, (long)len};

	for (size_t i = 0; i < N(dists); i++)
		for (long sign = -1; sign <= 1; sign += 2) {
			long d = sign * dists[i];
			size_t below[] = {1, (size_t)labs(d) / 2 + 1, (size_t)labs(d)};
			for (size_t b = 0; b < N(below) && d != 0; b++) {
				struct mg_case c = base_case(e, len);
				mg_case_set_overlap(&c, d);
				mg_case_set_spot(&c, MG_SPOT_SPAN_2GIB, below[b]);
				emit(e, &c);
			}
		}
}

/* span-4gib, separate buffers: the split at one byte, half and all but one
 * byte of the length, and the buffer ending at the multiple; both orders. */
static void span4_separate(struct emitter *e, size_t len)
{
	const size_t splits[] = {1, len / 2, len - 1, len};
	int orders = mg_op_has_src(e->v->op) ? 2 : 1;

	for (size_t i = 0; i < N(splits); i++) {
		if (splits[i] < 1 || (i > 0 && splits[i] == splits[i - 1]))
			continue;
		for (int above = 0; above < orders; above++) {
			struct mg_case c = base_case(e, len);
			c.src_above = above;
			mg_case_set_spot(&c, MG_SPOT_SPAN_4GIB, splits[i]);
			emit(e, &c);
		}
	}
}

/* span-4gib, memmove's one buffer, both directions: the multiple a byte,
 * half the span and all but a byte above the lower pointer. */
static void span4_overlap(struct emitter *e, size_t len)
{
	const long dists[] = {1, 64, (long)len / 2 + 1, (long)len};

	for (size_t i = 0; i < N(dists); i++)
		for (long sign = -1; sign <= 1; sign += 2) {
			size_t span = len + (size_t)dists[i];
			size_t below[] = {1, span / 2, span - 1};
			for (size_t b = 0; b < N(below); b++) {
				struct mg_case c = base_case(e, len);
				mg_case_set_overlap(&c, sign * dists[i]);
				mg_case_set_spot(&c, MG_SPOT_SPAN_4GIB, below[b]);
				emit(e, &c);
			}
		}
}

/* A remote spot this address space cannot give is said once per process
 * (a budgeted verify walks the stage twice: to count, then to run), on
 * stderr; its cases are left out (n/a here), never passed. */
static int remote_possible(enum mg_spot spot)
{
	static unsigned said; /* bit per spot */
	char why[160];

	if (mg_placements_possible(spot, why, sizeof why))
		return 1;
	if (!(said & 1u << spot))
		fprintf(stderr, "memgate: placements: %s n/a here: %s\n", mg_spot_name(spot), why);
	said |= 1u << spot;
	return 0;
}

/* span-4gib comes after the other spots, in a pass of its own: a routine
 * wrong at both stops at the first's findings. */
static void sweep_remote(struct emitter *e)
{
	int op_ok = mg_op_has_src(e->v->op) && !e->v->contract.fixed_len;
	int wide = UINTPTR_MAX > 0xffffffffu;
	int apart = op_ok && remote_possible(wide ? MG_SPOT_FAR : MG_SPOT_SPLIT_2GIB);
	int span = op_ok && !wide && e->v->op == MG_MEMMOVE && remote_possible(MG_SPOT_SPAN_2GIB);
	int span4 = wide && !e->v->contract.fixed_len && remote_possible(MG_SPOT_SPAN_4GIB);

	for (size_t len = 1; len <= 4096; len++) {
		if (!remote_length_wanted(e, len))
			continue;
		if (apart)
			apart_length(e, wide ? MG_SPOT_FAR : MG_SPOT_SPLIT_2GIB, len);
		if (span)
			span_length(e, len);
	}
	for (size_t len = 1; span4 && len <= 4096; len++) {
		if (!remote_length_wanted(e, len))
			continue;
		span4_separate(e, len);
		if (e->v->op == MG_MEMMOVE)
			span4_overlap(e, len);
	}
}

void mg_placements_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 mg_case_fn fn, void *ctx)
{
	struct emitter e = {v, profile, fn, ctx, seed, 0, 0};

	if (v->contract.fixed_len) /* page routines: a page, page aligned */
		return;
	sweep_straddles(&e);
	sweep_page_diffs(&e);
	sweep_remote(&e);
}
