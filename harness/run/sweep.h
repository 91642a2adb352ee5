/* The exhaustive sweep: a deterministic, seedable list of cases per variant. */
#ifndef MG_SWEEP_H
#define MG_SWEEP_H

#include "case.h"

#include <stdint.h>

/* smoke: a deterministic tenth to twentieth of quick, for the self-tests' correct
 * twins, whose sweeps under qemu would otherwise take minutes each. */
enum mg_profile { MG_PROFILE_QUICK, MG_PROFILE_FULL, MG_PROFILE_SMOKE };

/* Feeds `fn` every case of the profile that the variant's contract allows,
 * in a fixed order; case k's fill seed is derived from `seed` and k.
 * Returns whether `fn` stopped it (returned nonzero). */
int mg_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed, mg_case_fn fn,
	     void *ctx);

/* The lengths a routine compares n with, given by its caller (memgate
 * verify --thresholds: the values it reads, docs/tunables.md): a path that
 * starts at one of them is entered, or not, by lengths next to it, which
 * the profile's powers of two miss. */
#define MG_MAX_THRESHOLDS 32

struct mg_thresholds {
	size_t at[MG_MAX_THRESHOLDS];
	size_t n;
};

/* Whether the sweep takes lengths around `t`: past the dense lengths (every
 * length to 1 KiB is swept already) and within the sandbox (MG_MAX_LEN; the
 * huge check's mid-size lengths are past it). */
int mg_threshold_swept(size_t t);

/* Feeds `fn` the cases around each swept threshold t: the lengths t-1, t
 * and t+1 (the full profile: t plus and minus its small amounts) with the
 * alignment pairs a length past 1 KiB takes (past 64 KiB two of them: both
 * buffers aligned, both flush with the guard page), and for memmove a few overlaps
 * at each (either direction by one byte, by a cache line, by a page, and by
 * about the length). Their fill seeds are a stream of their own. */
void mg_sweep_thresholds(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 const struct mg_thresholds *t, mg_case_fn fn, void *ctx);

/* A situation stage's first case of `len` bytes (interrupts.c, threads.c):
 * separate buffers flush against the guard page after, memset's c 0x5a. */
static inline struct mg_case mg_situation_case(const struct mg_variant *v, size_t len)
{
	struct mg_case c = {.variant = v, .len = len, .value = 0x5a};

	c.src_align = c.dst_align = (unsigned)(-len & (MG_ALIGN_MOD - 1));
	return c;
}

/* Parses "smoke", "quick" or "full"; returns 0 if it is none of them. */
int mg_profile_parse(const char *name, enum mg_profile *out);

/* The profile's name, as mg_profile_parse takes it. */
const char *mg_profile_name(enum mg_profile profile);

#endif
