/* A case's per-call limit: what the watchdog gives one call of the
 * variant, by the case's length and threads. The situations (situation.c)
 * and the guarded call (outcome.h) both ask it, so it stands on its own. */
#ifndef MG_TIMEOUT_H
#define MG_TIMEOUT_H

#include "case.h"
#include "fault.h" /* mg_timeout_for */

/* More threads than cores take turns: on a loaded machine a call in the
 * threads situation may wait a few time slices of every other runnable
 * thread. Its watchdog gives it the plain limit once per thread of the
 * case, and this much more (under a load of 11 on 2 cores, 200 ms timed
 * out correct routines' workers). A hang is still stopped, a little later. */
#define MG_TURNS_EXTRA_MS 2000u

/* A case's per-call limit, plain or among threads (mg_situation_timeout_ms
 * has a stepped call's). */
static inline unsigned mg_case_timeout_ms(const struct mg_case *c)
{
	if (c->threads > 1)
		return mg_timeout_for(c->len) * c->threads + MG_TURNS_EXTRA_MS;
	return mg_timeout_for(c->len);
}

#endif
