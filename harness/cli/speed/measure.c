/* memgate speed's measurement: each figure is the best of N rounds, a round
 * being one pass over the whole table with every variant in turn: the shared
 * machine's noise, which only ever slows a call down, then falls on every
 * variant alike. Variants are called directly (no ABI trampoline) on plain
 * page-aligned buffers: this times the routine, not the harness. */
#include "call.h"
#include "clock.h"
#include "speed.h"

#include <math.h> /* NAN and isnan only: memgate links without libm */

#define SET_VALUE 0x5a
/* The time-stamp counter of this machine (a VM on AMD) reads in steps of
 * 21 ticks, so no single short call can be timed. A hot figure is one batch
 * of calls, long enough (about 64 KiB moved) for that step to vanish in it.
 * A cold figure is the mean of up to 16 calls, each flushed and timed on its
 * own: their start falls at random within a step, so the steps average out. */
#define HOT_BATCH_BYTES	 65536
#define HOT_BATCH_MAX	 256
#define COLD_BATCH_BYTES 32768

static unsigned batch(size_t len, size_t bytes, unsigned max)
{
	size_t calls = bytes / len;

	return calls < 1 ? 1 : calls > max ? max : (unsigned)calls;
}

/* Ticks per call of `calls` calls in a row, less the stamps' cost. */
static double time_calls(const struct mg_variant *v, unsigned char *dst, const unsigned char *src,
			 size_t len, unsigned calls)
{
	uint64_t t0 = stamp();

	for (unsigned i = 0; i < calls; i++)
		mg_call_direct(v, dst, src, SET_VALUE, len);
	return ((double)(stamp() - t0) - mg_speed_timer_floor) / calls;
}

static int reads_source(enum mg_op op)
{
	return op == MG_MEMCPY || op == MG_MEMMOVE || op == MG_COPY_PAGE || op == MG_MEMPCPY;
}

/* Cycles per call, one round. Hot: one call to warm up (the previous round
 * ran another variant), then a batch. Cold: calls each made after flushing
 * what it touches; the code stays warm, as at a real call site. */
static double time_round(const struct mg_variant *v, enum cache cache, unsigned char *dst,
			 const unsigned char *src, size_t len)
{
	unsigned calls;
	double sum = 0;

	if (cache == HOT) {
		mg_call_direct(v, dst, src, SET_VALUE, len);
		return time_calls(v, dst, src, len, batch(len, HOT_BATCH_BYTES, HOT_BATCH_MAX));
	}
	calls = batch(len, COLD_BATCH_BYTES, COLD_CALLS_MAX);
	for (unsigned i = 0; i < calls; i++) {
		mg_speed_make_cold(reads_source(v->op) ? src : NULL, dst, len);
		sum += time_calls(v, dst, src, len, 1);
	}
	return sum / calls;
}

static int contract_allows(const struct mg_variant *v, size_t len, const struct align_case *a)
{
	const struct mg_contract *k = &v->contract;

	if (k->fixed_len)
		return len == k->fixed_len && a->src == 0 && a->dst == 0;
	return a->src % k->src_align == 0 && a->dst % k->dst_align == 0 &&
	       len % k->len_multiple == 0;
}

/* One round of one cell: every variant once, starting at the next one each
 * round, so that none always runs first. */
static void measure_cell(struct speed *s, unsigned round, enum cache c, size_t l, size_t a)
{
	const struct align_case *al = &s->aligns[a];
	size_t len = s->lens[l];

	for (size_t k = 0; k < s->nv; k++) {
		size_t i = (k + round) % s->nv;
		const struct mg_variant *v = s->v[i];
		double *best = cell(s, c, l, a, i);
		if (s->skip[i][0] || !contract_allows(v, len, al))
			continue;
		unsigned char *src = (al->overlap ? s->dst : s->src) + al->src;
		unsigned char *dst = s->dst + al->dst;
		double t = time_round(v, c, dst, src, len);
		t = t > 0 ? t : 0; /* the floor is a mean: it can overshoot */
		if (isnan(*best) || t < *best)
			*best = t;
	}
}

/* A round is one pass over the whole table, not N tries of one cell in a
 * row: a burst of noise from the VM's neighbours then spoils a round of
 * many cells, which the other rounds make up for, and not every round of
 * a few. */
void mg_speed_measure_all(struct speed *s)
{
	size_t cells = CACHE_COUNT * s->nlen * s->nalign * s->nv;

	for (size_t i = 0; i < cells; i++)
		s->cycles[i] = NAN;
	for (unsigned r = 0; r < s->rounds; r++)
		for (int c = 0; c < CACHE_COUNT; c++)
			for (size_t l = 0; l < s->nlen; l++)
				for (size_t a = 0; a < s->nalign; a++)
					measure_cell(s, r, (enum cache)c, l, a);
}
