/* The threads situation (docs/contract.md, S2): a case run in several
 * threads at once, each on buffers of its own, since POSIX makes memcpy,
 * memmove and memset thread-safe (XSH 2.9.1). The calling thread makes the
 * case's call in the sandbox, judged as every call is; at the same moment
 * `threads - 1` workers, each with a guard-paged sandbox of its own and its
 * own bytes (the case's seed mixed with the worker's number), make the
 * same call again and again (MG_THREADS_ROUNDS times at least, and until
 * the caller's call has returned), and each result is compared with the
 * reference's. They are released together from a start line they reach
 * running, and the caller's call starts once each of theirs has, so that
 * it overlaps theirs however the threads are scheduled. A worker's wrong byte, wrong return,
 * fault or hang is the case's finding. A case's `threads` field asks for
 * it (`memgate run --threads=N`). */
#ifndef MG_THREAD_H
#define MG_THREAD_H

#include "outcome.h"

#include <stddef.h>

/* The calls each worker makes at least, back to back. */
#define MG_THREADS_ROUNDS 8u

/* mg_outcome_run with workers at the same time. Faults of the calling
 * thread's call unwind through mg_fault_jmp as usual, and
 * mg_outcome_faulted then calls mg_threads_abandon. */
void mg_threads_run(struct mg_outcome *o, int clean_int);

/* After a fault in the caller's call: waits for the workers (stopping
 * those that hang), so that nothing runs on when the case is judged. */
void mg_threads_abandon(void);

/* The judge's rule for a case run in threads: 1 and *out if a worker saw
 * the routine fail, or the situation could not be made (an error, never a
 * pass). 0 for any other call. */
int mg_threads_broken(const struct mg_outcome *o, struct mg_verdict *out);

#endif
