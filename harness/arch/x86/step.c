/* x86 single-stepping: the trap flag (EFLAGS.TF) makes the CPU raise a
 * debug exception after each instruction, which Linux delivers as SIGTRAP
 * with si_code TRAP_TRACE; a string instruction with a rep prefix traps
 * after each iteration. */
#include "step.h"

#include <signal.h>
#include <stdio.h>
#include <ucontext.h>

#define X86_EFLAGS_TF 0x100

int mg_step_possible(char *why, size_t size)
{
	(void)why;
	(void)size;
	return 1;
}

void mg_step_where(const void *ucontext, uintptr_t *pc, uintptr_t *sp)
{
	const greg_t *regs = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;

#if defined(__x86_64__)
	*pc = (uintptr_t)regs[REG_RIP];
	*sp = (uintptr_t)regs[REG_RSP];
#else
	*pc = (uintptr_t)regs[REG_EIP];
	*sp = (uintptr_t)regs[REG_ESP];
#endif
}

void mg_step_stop(void *ucontext)
{
	((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)X86_EFLAGS_TF;
}

/* psABI-64 3.2.2: the 128 bytes below rsp are the function's, and signal
 * handlers leave them alone; the kernel builds with -mno-red-zone (psABI-64
 * A.2.2), and the i386 ABI has no red zone. */
size_t mg_step_red_zone(int kernel)
{
#if defined(__x86_64__)
	return kernel ? 0 : 128;
#else
	(void)kernel;
	return 0;
#endif
}
