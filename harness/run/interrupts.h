/* The interrupts stage of `verify` (docs/contract.md, S1): short and some
 * longer cases, each with the routine stopped after every instruction
 * (interrupt.h), where the ISA can step a call. */
#ifndef MG_INTERRUPTS_H
#define MG_INTERRUPTS_H

#include "sweep.h"

/* Feeds `fn` the interrupted cases for a variant; none where calls cannot
 * be stepped (mg_situation_interrupt.possible says why). */
void mg_interrupts_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 mg_case_fn fn, void *ctx);

#endif
