/* AArch64: no variant needs an optional CPU feature yet (dc zva checks
 * DCZID_EL0 itself, at run time), so there is nothing to detect. */
#include "cpu.h"

#include <stdint.h>

unsigned mg_cpu_detect(void)
{
	return 0;
}

/* FPCR is the only control state a variant may leave changed (AArch64 has
 * no direction flag); its Linux default is all zeros: round to nearest, no
 * flush-to-zero, no default NaN, no traps. */
void mg_cpu_reset_state(void)
{
	__asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)0));
}
