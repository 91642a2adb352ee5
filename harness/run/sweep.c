/* What the sweep covers, per operation:
 * - every length 0..1024, and powers of two from 1 KiB to 8 MiB plus and
 *   minus small amounts (more of them in the full profile, which also takes
 *   12 and 16 MiB: mid-size lengths past that are huge.c's);
 * - every src/dst alignment pair mod 64 for short lengths, a subset for
 *   longer ones that always includes the alignment at which a buffer ends
 *   flush with the guard page after it;
 * - memmove: every overlap distance 1..256 both ways, distances around the
 *   length, and d == s;
 * - memset: fill values 0, 1, 0x7f, 0x80, 0xfe, 0xff and ints beyond a byte;
 * - smoke (the self-tests' correct twins, whose sweeps run under qemu):
 *   every length of quick, but up to 128 bytes the pairs of the alignments
 *   in picks, not every pair, and memmove's overlaps (every distance) up
 *   to 32 bytes: a twentieth of quick's cases for memcpy, a tenth for memmove;
 * - each case once against the guard page after and once against the one
 *   before; with separate buffers, once with the source below the
 *   destination and once above it;
 * - the stack pointer's alignment at entry: the cases take the offsets the
 *   ABI allows in turn (mg_stack_offset_nth), so every length meets
 *   several;
 * - the floating-point environment at entry: one case in 8 takes one of
 *   those a caller may set, in turn, the others the default (mg_fpenv_nth);
 * - the vector length, for a routine that may use SVE: the start-up one or
 *   another the CPU has, by a hash (mg_vl_nth);
 * - tagged pointers, where the top byte is ignored: half the cases, by a
 *   hash (mg_tag_nth);
 * - the user copies: besides those cases, where nothing faults, the user
 *   buffer faulting at byte k (sweep_faults);
 * - apart from the profile, the lengths next to each threshold the caller
 *   names (mg_sweep_thresholds). */
#include "sweep.h"
#include "rng.h"

#include <string.h>

struct emitter {
	mg_case_fn fn;
	void *ctx;
	uint64_t seed;
	uint64_t count;
	int stopped;
};

/* How much of each dimension a profile takes. */
struct plan {
	int all_pairs;	       /* every alignment pair up to all_pairs_upto, */
	size_t all_pairs_upto; /* or else the picks' pairs up to it */
	size_t short_reach;    /* picks paired at lengths past it to 1 KiB */
	const int *big_deltas; /* added to each power of two >= 1 KiB */
	size_t n_big_deltas;
	size_t overlap_upto; /* every overlap length up to this */
	const unsigned *overlap_aligns;
	size_t n_overlap_aligns;
	int all_values;	     /* memset: every value at every point */
	unsigned page_fills; /* page routines: fill seeds per placement */
	int midsize;	     /* the lengths of full_midsize too */
};

/* The alignments that longer lengths take: each side of 8, 16, 32 and 64. */
static const unsigned picks[] = {0, 1, 7, 8, 15, 16, 31, 32, 33, 63};
static const int quick_deltas[] = {-1, 0, 1};
static const int full_deltas[] = {-65, -64, -63, -33, -32, -31, -17, -16, -15, -9, -8,
				  -7,  -3,  -2,	 -1,  0,   1,	2,   3,	  7,   8,  9,
				  15,  16,  17,	 31,  32,  33,	63,  64,  65};
static const unsigned quick_overlap_aligns[] = {0, 7};
static const unsigned full_overlap_aligns[] = {0, 1, 7, 8, 15, 16, 33, 63};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct plan plans[] = {
	[MG_PROFILE_QUICK] = {1, 128, N(picks), quick_deltas, N(quick_deltas), 128,
			      quick_overlap_aligns, N(quick_overlap_aligns), 0, 8, 0},
	[MG_PROFILE_FULL] = {1, 256, N(picks), full_deltas, N(full_deltas), 300,
			     full_overlap_aligns, N(full_overlap_aligns), 1, 64, 1},
	[MG_PROFILE_SMOKE] = {0, 128, 3, quick_deltas, N(quick_deltas), 32, quick_overlap_aligns,
			      N(quick_overlap_aligns), 0, 2, 0},
};

static const int memset_values[] = {0, 1, 0x7f, 0x80, 0xfe, 0xff, 0x1ab, -1, -65, 0x7fffff80};

/* Extra lengths past the dense ranges, for memmove's overlap sweep. */
static const size_t overlap_extra_lengths[] = {127,  128,   129,   255,	  256,	  257,	511,
					       512,  513,   1023,  1024,  1025,	  4095, 4096,
					       4097, 65535, 65536, 65537, 1 << 20};

#define MAX_BIG_POWER 23 /* 8 MiB */
#define MIN_BIG_POWER 10

/* The full profile's mid-size lengths that fit the sandbox (the longer
 * ones are the huge check's, huge.c): a common non-temporal threshold and
 * the sandbox's limit. */
static const size_t full_midsize[] = {(size_t)12 << 20, ((size_t)12 << 20) + 1, MG_MAX_LEN - 1,
				      MG_MAX_LEN};

static void emit(struct emitter *e, struct mg_case *c)
{
	char why[128];

	mg_case_vary_entry(c, e->count);
	if (e->stopped || !mg_case_valid(c, why, sizeof why))
		return;
	int orders = mg_op_has_src(c->variant->op) && !c->overlap ? 2 : 1;

	c->seed = mg_mix64(e->seed + e->count++);
	for (int above = 0; above < orders; above++)
		for (int p = MG_PLACE_AFTER; p <= MG_PLACE_BEFORE && !e->stopped; p++) {
			c->src_above = above;
			c->place = (enum mg_place)p;
			e->stopped = e->fn(c, e->ctx);
		}
	c->src_above = 0;
}

/* The alignment at which a buffer of `len` ends on a page boundary. */
static unsigned flush_align(size_t len)
{
	return (unsigned)(-len & (MG_ALIGN_MOD - 1));
}

static void emit_pair(struct emitter *e, struct mg_case *c, unsigned sa, unsigned da)
{
	c->src_align = sa;
	c->dst_align = da;
	emit(e, c);
}

static void emit_all_pairs(struct emitter *e, struct mg_case *c)
{
	for (unsigned sa = 0; sa < MG_ALIGN_MOD; sa++)
		for (unsigned da = 0; da < MG_ALIGN_MOD; da++)
			emit_pair(e, c, sa, da);
}

static void emit_pick_pairs(struct emitter *e, struct mg_case *c)
{
	for (size_t i = 0; i < N(picks); i++)
		for (size_t j = 0; j < N(picks); j++)
			emit_pair(e, c, picks[i], picks[j]);
}

static void emit_pairs(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	unsigned f = flush_align(c->len);

	if (c->len <= plan->all_pairs_upto && plan->all_pairs) {
		emit_all_pairs(e, c);
		return;
	}
	emit_pair(e, c, f, f);
	emit_pair(e, c, f, 0);
	emit_pair(e, c, 0, f);
	if (c->len <= plan->all_pairs_upto) {
		emit_pick_pairs(e, c);
		return;
	}
	/* Longer lengths: each pick against a few partners, both ways round. */
	size_t reach = c->len <= 1024 ? plan->short_reach : c->len <= (64u << 10) ? 3 : 1;
	for (size_t i = 0; i < reach; i++) {
		emit_pair(e, c, picks[i], picks[i]);
		emit_pair(e, c, picks[i], picks[N(picks) - 1 - i]);
	}
}

/* memset has one buffer: which of its alignments a length gets. */
static int memset_align_wanted(const struct plan *plan, size_t len, unsigned da)
{
	if ((len <= plan->all_pairs_upto && plan->all_pairs) || da == flush_align(len))
		return 1;
	if (len <= 1024)
		return da % 8 == 0 || da % 8 == 7;
	return da == 0 || da == 1 || da == 63;
}

static void emit_length(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	if (c->variant->op != MG_MEMSET) {
		emit_pairs(e, plan, c);
		return;
	}
	for (unsigned da = 0; da < MG_ALIGN_MOD; da++) {
		if (!memset_align_wanted(plan, c->len, da))
			continue;
		c->dst_align = da;
		size_t first = plan->all_values ? 0 : (c->len + da) % N(memset_values);
		size_t last = plan->all_values ? N(memset_values) : first + 1;
		for (size_t i = first; i < last; i++) {
			c->value = memset_values[i];
			emit(e, c);
		}
	}
}

static void sweep_lengths(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	for (size_t len = 0; len <= 1024; len++) {
		c->len = len;
		emit_length(e, plan, c);
	}
	for (int k = MIN_BIG_POWER; k <= MAX_BIG_POWER; k++)
		for (size_t i = 0; i < plan->n_big_deltas; i++) {
			long len = (1L << k) + plan->big_deltas[i];
			if (len <= 1024)
				continue;
			c->len = (size_t)len;
			emit_length(e, plan, c);
		}
	for (size_t i = 0; plan->midsize && i < N(full_midsize); i++) {
		c->len = full_midsize[i];
		emit_length(e, plan, c);
	}
}

static void sweep_distances(struct emitter *e, struct mg_case *c)
{
	long len = (long)c->len;
	const long near[] = {len - 1, len, len + 1};

	mg_case_set_overlap(c, 0);
	emit(e, c);
	for (long d = 1; d <= 256; d++) {
		mg_case_set_overlap(c, d);
		emit(e, c);
		mg_case_set_overlap(c, -d);
		emit(e, c);
	}
	for (size_t i = 0; i < N(near); i++)
		if (near[i] > 256) {
			mg_case_set_overlap(c, near[i]);
			emit(e, c);
			mg_case_set_overlap(c, -near[i]);
			emit(e, c);
		}
}

static void sweep_overlap_length(struct emitter *e, const struct plan *plan, struct mg_case *c,
				 size_t len)
{
	c->len = len;
	for (size_t a = 0; a < plan->n_overlap_aligns; a++) {
		c->src_align = plan->overlap_aligns[a];
		sweep_distances(e, c);
	}
}

static void sweep_overlaps(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	for (size_t len = 0; len <= plan->overlap_upto; len++)
		sweep_overlap_length(e, plan, c, len);
	for (size_t i = 0; i < N(overlap_extra_lengths); i++)
		if (overlap_extra_lengths[i] > plan->overlap_upto)
			sweep_overlap_length(e, plan, c, overlap_extra_lengths[i]);
	c->overlap = false;
	c->dist = 0;
}

static void sweep_pages(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	c->len = c->variant->contract.fixed_len;
	for (unsigned i = 0; i < plan->page_fills; i++)
		emit(e, c);
}

/* The user copies' faults (docs/usercopy.md): every fault byte k up to
 * faults_every_upto bytes (quick 64, full 256), and at longer lengths the
 * bytes at both ends and inside: the first ones, each side of the 8- and
 * 64-byte steps from either end, the middle, and the last ones. The user
 * buffer's alignment follows from k; the kernel buffer takes a few. */
static const size_t fault_lengths[] = {100, 127, 128, 129, 255, 256, 257, 511, 512, 1000, 1024,
				       1025, 4095, 4096, 4097, 8193, 65537, (size_t)1 << 20};

static void emit_fault(struct emitter *e, struct mg_case *c, size_t k, const unsigned *aligns,
		       size_t n_aligns)
{
	int user_src = mg_user_is_src(c->variant->op);

	for (size_t i = 0; i < n_aligns; i++) {
		if (user_src)
			c->dst_align = aligns[i];
		else
			c->src_align = aligns[i];
		mg_case_set_fault(c, k);
		emit(e, c);
	}
}

static void sweep_fault_samples(struct emitter *e, struct mg_case *c, const unsigned *aligns,
				size_t n_aligns)
{
	size_t n = c->len;
	const size_t picks[] = {0,	1,     2,     7,     8,	    9,	   63,	  64,	 65,
				n / 2 - 1, n / 2, n / 2 + 1, n - 65, n - 64, n - 63, n - 9,
				n - 8,	   n - 7, n - 2, n - 1};

	for (size_t i = 0; i < N(picks); i++) {
		int seen = 0;
		for (size_t j = 0; j < i; j++)
			seen |= picks[j] == picks[i];
		if (!seen && picks[i] < n)
			emit_fault(e, c, picks[i], aligns, n_aligns);
	}
}

static void sweep_faults(struct emitter *e, enum mg_profile profile, struct mg_case *c)
{
	static const unsigned quick_aligns[] = {0, 7}, full_aligns[] = {0, 1, 7, 8, 33, 63};
	const unsigned *aligns = profile == MG_PROFILE_FULL ? full_aligns : quick_aligns;
	size_t n_aligns = profile == MG_PROFILE_FULL ? N(full_aligns) : N(quick_aligns);
	size_t every_upto = profile == MG_PROFILE_FULL ? 256 : 64;

	for (size_t len = 1; len <= every_upto; len++) {
		c->len = len;
		for (size_t k = 0; k < len; k++)
			emit_fault(e, c, k, aligns, n_aligns);
	}
	for (size_t i = 0; i < N(fault_lengths); i++) {
		if (fault_lengths[i] <= every_upto)
			continue;
		c->len = fault_lengths[i];
		sweep_fault_samples(e, c, aligns, n_aligns);
	}
	c->user_fault = false;
	c->fault_at = 0;
}

int mg_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed, mg_case_fn fn,
	     void *ctx)
{
	struct emitter e = {fn, ctx, seed, 0, 0};
	const struct plan *plan = &plans[profile];
	struct mg_case c;

	memset(&c, 0, sizeof c);
	c.variant = v;
	if (v->contract.fixed_len) {
		sweep_pages(&e, plan, &c);
		return e.stopped;
	}
	/* The faults first: they are what a user copy gets wrong. */
	if (mg_op_is_user(v->op))
		sweep_faults(&e, profile, &c);
	sweep_lengths(&e, plan, &c);
	if (v->op == MG_MEMMOVE)
		sweep_overlaps(&e, plan, &c);
	return e.stopped;
}

int mg_threshold_swept(size_t t)
{
	return t >= 1024 && t < MG_MAX_LEN;
}

/* memmove's distances at a threshold's length: one byte, a cache line, a
 * page and the length itself, each way (mg_case_valid drops the ones a
 * length does not take). */
static void sweep_threshold_overlaps(struct emitter *e, const struct plan *plan,
				     struct mg_case *c)
{
	const long len = (long)c->len;
	const long dists[] = {1, 64, 4096, len - 1, len};

	for (size_t a = 0; a < plan->n_overlap_aligns; a++) {
		c->src_align = plan->overlap_aligns[a];
		for (size_t i = 0; i < N(dists); i++) {
			mg_case_set_overlap(c, dists[i]);
			emit(e, c);
			mg_case_set_overlap(c, -dists[i]);
			emit(e, c);
		}
	}
	c->overlap = false;
	c->dist = 0;
}

/* One length next to a threshold: the profile's alignment pairs for it,
 * but past 64 KiB (a non-temporal threshold is a few MiB, each call a few
 * milliseconds) only both buffers aligned and both flush with the guard
 * page after them, the pairs that select a path by alignment least and
 * most. */
#define THRESHOLD_FEW_PAIRS_PAST ((size_t)64 << 10)

static void threshold_length(struct emitter *e, const struct plan *plan, struct mg_case *c)
{
	unsigned f = flush_align(c->len);

	if (c->len <= THRESHOLD_FEW_PAIRS_PAST || c->variant->op == MG_MEMSET) {
		emit_length(e, plan, c);
		return;
	}
	emit_pair(e, c, 0, 0);
	emit_pair(e, c, f, f);
}

/* Distinguishes the thresholds' fill seeds from the profile's own cases'. */
#define THRESHOLD_SEED_SALT 0x7468726573686f6cull

void mg_sweep_thresholds(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 const struct mg_thresholds *t, mg_case_fn fn, void *ctx)
{
	struct emitter e = {fn, ctx, seed ^ THRESHOLD_SEED_SALT, 0, 0};
	const struct plan *plan = &plans[profile];
	struct mg_case c;

	if (!t || v->contract.fixed_len)
		return;
	memset(&c, 0, sizeof c);
	c.variant = v;
	for (size_t i = 0; i < t->n; i++) {
		if (!mg_threshold_swept(t->at[i]))
			continue;
		for (size_t d = 0; d < plan->n_big_deltas; d++) {
			long len = (long)t->at[i] + plan->big_deltas[d];
			if (len <= 1024 || (size_t)len > MG_MAX_LEN)
				continue;
			c.len = (size_t)len;
			threshold_length(&e, plan, &c);
			if (v->op == MG_MEMMOVE)
				sweep_threshold_overlaps(&e, plan, &c);
		}
	}
}

static const char *const profile_names[] = {
	[MG_PROFILE_QUICK] = "quick",
	[MG_PROFILE_FULL] = "full",
	[MG_PROFILE_SMOKE] = "smoke",
};

int mg_profile_parse(const char *name, enum mg_profile *out)
{
	for (size_t i = 0; i < N(profile_names); i++)
		if (strcmp(name, profile_names[i]) == 0) {
			*out = (enum mg_profile)i;
			return 1;
		}
	return 0;
}

const char *mg_profile_name(enum mg_profile profile)
{
	return profile_names[profile];
}
