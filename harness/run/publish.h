/* The message-passing run (docs/contract.md M1, M4): the caller's thread
 * runs the routine on a buffer and then publishes it with a release store;
 * a reader on another CPU acquires that store and reads the buffer back.
 * A byte of the round before means a store of the routine was not ordered
 * before the release: on x86, a non-temporal store with no fence after it
 * (the store-order audit, scripts/orchestration/store_order_audit.py, is
 * the verdict on that; this shows it happen). What the reader sees depends
 * on the hardware and the moment, so the run reports a count and is never
 * a verdict: a count of 0 says only that this machine did not show it. */
#ifndef MG_PUBLISH_H
#define MG_PUBLISH_H

#include "variant.h"

#include <stddef.h>

struct mg_publish_result {
	unsigned long long rounds; /* rounds run */
	unsigned long long stale;  /* rounds whose reader saw a stale byte */
	int writer_cpu, reader_cpu;
	char why[200]; /* why it could not run (mg_publish returned 0) */
};

/* Runs `rounds` rounds of `len` bytes (a page routine's own length).
 * Returns 1 when it ran, 0 when it cannot run here (one CPU, an emulator,
 * a user copy; `why` says), -1 when it could not (`why`). */
int mg_publish(const struct mg_variant *v, size_t len, unsigned long long rounds,
	       struct mg_publish_result *out);

#endif
