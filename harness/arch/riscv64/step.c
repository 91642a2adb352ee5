/* riscv64 cannot step itself: RISC-V has no user-visible single-step
 * (the debug module's step is for an external debugger, and Linux has no
 * PTRACE_SINGLESTEP on riscv), and qemu-user does not single-step the
 * programs it runs. The interrupt situation is n/a here (docs/contract.md,
 * S1). */
#include "step.h"

#include <stdio.h>
#include <stdlib.h>

int mg_step_possible(char *why, size_t size)
{
	snprintf(why, size,
		 "riscv64 user code cannot single-step itself (RISC-V has no user-mode "
		 "single-step; Linux has no PTRACE_SINGLESTEP there)");
	return 0;
}

/* Never reached: the engine asks mg_step_possible first. */
uintptr_t mg_abi_call_stepped(const void *fn, uintptr_t a0, uintptr_t a1, uintptr_t a2,
			      struct mg_abi_record *rec)
{
	(void)fn, (void)a0, (void)a1, (void)a2, (void)rec;
	abort();
}

const char mg_abi_call_returned[1];

void mg_step_where(const void *ucontext, uintptr_t *pc, uintptr_t *sp)
{
	(void)ucontext;
	*pc = *sp = 0;
}

void mg_step_stop(void *ucontext)
{
	(void)ucontext;
}

size_t mg_step_red_zone(int kernel)
{
	(void)kernel;
	return 0;
}
