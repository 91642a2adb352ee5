/* An arch whose user code cannot step itself (aarch64, riscv64, armhf):
 * the interrupt situation is n/a there (docs/contract.md, S1), and the
 * reason is the arch's (MG_STEP_IMPOSSIBLE, in its trampoline header). */
#include "step.h"

#include <stdio.h>
#include <stdlib.h>

int mg_step_possible(char *why, size_t size)
{
	snprintf(why, size, "%s", MG_STEP_IMPOSSIBLE);
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
