/* Deterministic pseudo-random numbers: every case is replayable from its seed. */
#ifndef MG_RNG_H
#define MG_RNG_H

#include <stdint.h>

/* splitmix64: one step maps any seed to a well-mixed 64-bit value. */
static inline uint64_t mg_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Maps a uniform 64-bit value into [0, bound) with a multiply, not a divide:
 * the high half of the 128-bit product x * bound. */
static inline uint64_t mg_below(uint64_t x, uint64_t bound)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t)(((unsigned __int128)x * bound) >> 64);
#else
	/* 32-bit targets: the same product from 32-bit halves, so a seed gives
	 * the same cases on every arch. */
	uint64_t x0 = (uint32_t)x, x1 = x >> 32, b0 = (uint32_t)bound, b1 = bound >> 32;
	uint64_t lo = x0 * b0, m1 = x1 * b0, m2 = x0 * b1;
	uint64_t mid = (lo >> 32) + (uint32_t)m1 + (uint32_t)m2;

	return x1 * b1 + (m1 >> 32) + (m2 >> 32) + (mid >> 32);
#endif
}

struct mg_rng {
	uint64_t state;
};

static inline uint64_t mg_rng_next(struct mg_rng *r)
{
	r->state += 0x9e3779b97f4a7c15ull;
	return mg_mix64(r->state);
}

/* Uniform in [0, bound) for bound > 0. */
static inline uint64_t mg_rng_below(struct mg_rng *r, uint64_t bound)
{
	return mg_below(mg_rng_next(r), bound);
}

#endif
