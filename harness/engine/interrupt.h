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
 * A case's `interrupt` flag asks for it (`memgate run --interrupt=step`).
 * The judge's rule: a stop that saw the routine break one of the duties
 * above, or no stop at all (an error: the situation was not made). */
#ifndef MG_INTERRUPT_H
#define MG_INTERRUPT_H

#include "situation.h"

/* The situation, in situations.def's table. A stepped call's watchdog
 * limit is many times a plain call's; a case asks for it with `interrupt`,
 * at lengths up to MG_SPOT_MAX_LEN at the guard pages and the straddles,
 * where the ISA can step (not under valgrind, which delivers no
 * single-step trap). */
extern const struct mg_situation mg_situation_interrupt;

#endif
