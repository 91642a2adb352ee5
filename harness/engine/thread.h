/* The threads situation (docs/contract.md, S2): a case run in several
 * threads at once, each on buffers of its own, since POSIX makes memcpy,
 * memmove and memset thread-safe (XSH 2.9.1). The calling thread makes the
 * case's call in the sandbox, judged as every call is; at the same moment
 * `threads - 1` workers, each with a guard-paged sandbox of its own, make
 * calls of their own again and again (MG_THREADS_ROUNDS times at least,
 * and until the caller's call has returned), and each result is compared
 * with the reference's. Each call is a case drawn from the case's seed,
 * the worker and the round: its own length (up to MG_SPOT_MAX_LEN),
 * alignments, overlap, guard page, value and bytes, or, one round in
 * four, the caller's case with bytes of its own (thread.c, draw_call). They are released together from a start line they reach
 * running, and the caller's call starts once each of theirs has, so that
 * it overlaps theirs however the threads are scheduled. A worker's wrong byte, wrong return,
 * fault or hang is the case's finding. A case's `threads` field asks for
 * it (`memgate run --threads=N`). */
#ifndef MG_THREAD_H
#define MG_THREAD_H

#include "situation.h"

#include <stdint.h>

/* The calls each worker makes at least, back to back. */
#define MG_THREADS_ROUNDS 8u

/* The situation, in situations.def's table. The judge's rule: a worker that
 * saw the routine fail, or a situation that could not be made (an error,
 * never a pass). After a fault in the caller's call it waits for the
 * workers (stopping those that hang). */
extern const struct mg_situation mg_situation_threads;

/* A worker's call, as a standalone program (targets/emit_c.c) makes it
 * again: the case it draws, where its buffers lie in the worker's mapping
 * ([guard] source region [guard] destination region [guard], of
 * MG_THREADS_REGION bytes each), the generator state its bytes come from,
 * and how a verdict describes it ("" when it has the caller's shape). */
#define MG_THREADS_REGION ((size_t)64 << 10)
struct mg_threads_call {
	struct mg_case call;
	size_t src_off, dst_off, lo_off, hi_off; /* hi: the window's end */
	uint64_t fill_state;
	char shape[160];
};

/* Worker `index` (1 to threads - 1)'s call in round `round` of case c.
 * Returns 0, or -1 if the worker's mapping cannot be made. */
int mg_threads_call(const struct mg_case *c, unsigned index, unsigned round,
		    struct mg_threads_call *out);

#endif
