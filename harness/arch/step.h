/* Single-stepping a call, for the interrupt situation (engine/interrupt.c):
 * the routine is stopped after each of its instructions, as a signal or an
 * interrupt may stop it, and the engine does there what such a handler may
 * do. The engine owns this interface; each ISA implements it
 * (arch/ISA/step.c and its trampoline), or says why it cannot. */
#ifndef MG_STEP_H
#define MG_STEP_H

#include "abi.h"

#include <stddef.h>
#include <stdint.h>

/* 1 if this ISA can step a call in-process; else 0 with the reason. */
int mg_step_possible(char *why, size_t size);

/* mg_abi_call with the trap flag set from its first instruction on: every
 * instruction raises SIGTRAP (TRAP_TRACE) until mg_step_stop clears it. */
uintptr_t mg_abi_call_stepped(const void *fn, uintptr_t a0, uintptr_t a1, uintptr_t a2,
			      struct mg_abi_record *rec);

/* The trampoline's instruction right after its call of fn: a step that
 * lands there has left the routine. */
extern const char mg_abi_call_returned[];

/* The interrupted program counter and stack pointer, from a signal's
 * machine context. */
void mg_step_where(const void *ucontext, uintptr_t *pc, uintptr_t *sp);

/* Clears the trap flag in a signal's machine context: stepping ends when
 * the handler returns. */
void mg_step_stop(void *ucontext);

/* How many bytes below the stack pointer the interrupted code owns: a user
 * signal handler leaves them alone (x86-64's red zone); kernel code and the
 * other ABIs own none. */
size_t mg_step_red_zone(int kernel);

#endif
