/* The threads stage of `verify` (docs/contract.md, S2): cases of every
 * kind run in 2 and in 4 threads at once (thread.h). */
#ifndef MG_THREADS_H
#define MG_THREADS_H

#include "sweep.h"

/* Feeds `fn` the threaded cases for a variant. */
void mg_threads_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
		      mg_case_fn fn, void *ctx);

#endif
