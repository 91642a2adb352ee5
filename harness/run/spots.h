/* The placements stage of `verify`: page straddles at every split point up
 * to 64 bytes and sampled ones beyond, (dst - src) mod 4096 over its whole
 * range for lengths of a page and more, and the remote spots of
 * placements.h (docs/placements.md). */
#ifndef MG_SPOTS_H
#define MG_SPOTS_H

#include "sweep.h"

/* Feeds `fn` the placement cases of the profile for a variant: straddles,
 * page-diff, and the remote spots this address space allows (one line on
 * stderr names each that it does not). */
void mg_placements_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 mg_case_fn fn, void *ctx);

#endif
