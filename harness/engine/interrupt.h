/* The interrupt situation (docs/contract.md, S1): a case whose routine is
 * stopped after each of its instructions, as a signal (user code) or an
 * interrupt (kernel code) may stop it anywhere. At each stop the handler
 * does what such a handler may do, and first checks what the routine did
 * since the stop before:
 * - the stack below what the routine owns (below x86-64's red zone for
 *   user code, below the stack pointer otherwise) is overwritten, as a
 *   signal frame or an interrupt frame would be; a write of the routine's
 *   there is an abi-violation (rule `below-stack`): the next signal or
 *   interrupt destroys it;
 * - the bytes around a separate destination are changed, as another
 *   thread may change them; a write there is an out-of-bounds-write, and
 *   one that puts back a value from before the change is a read-modify-
 *   write of bytes outside the buffer (C11 5.1.2.4: a data race the
 *   caller did not write);
 * - every so often the handler calls the routine itself, on buffers of its
 *   own (POSIX makes these functions async-signal-safe); a wrong result
 *   there is a wrong-result.
 * A case's `interrupt` flag asks for it (`memgate run --interrupt=step`). */
#ifndef MG_INTERRUPT_H
#define MG_INTERRUPT_H

#include "outcome.h"
#include "sandbox.h"

#include <stddef.h>

/* 1 if calls can be stopped at each instruction here; else 0 with why. */
int mg_interrupt_possible(char *why, size_t size);

/* The watchdog's limit for a stepped call of `len` bytes, in ms. */
unsigned mg_interrupt_timeout_ms(size_t len);

/* mg_outcome_run, stopped at every instruction of the routine: its
 * buffers' window is `at`'s. Faults unwind through mg_fault_jmp as usual,
 * and mg_outcome_faulted then calls mg_interrupt_abandon. */
void mg_interrupt_run(struct mg_outcome *o, const struct mg_layout *at, int clean_int);

/* Whether the handler calls the routine itself (1, the default); 0 tells
 * a routine that is not reentrant from one that breaks otherwise. */
extern int mg_interrupt_nested;

/* After a fault in a stepped call: puts the window back and stops. */
void mg_interrupt_abandon(void);

/* The judge's rule for a stepped call: 1 and *out if a stop saw the
 * routine break one of the duties above, or saw no stop at all (an error:
 * the situation was not made). 0 for any other call. */
int mg_interrupt_broken(const struct mg_outcome *o, struct mg_verdict *out);

#endif
