/* Probe (tests/run.d/arch_aarch64.sh, docs/contract.md A6): writes FPCR's
 * exception-control (trap enable) bits and prints what reads back. A CPU
 * or emulator without trapped floating-point exceptions reads them as
 * zero, and then no caller can run with them set. */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	uint64_t fpcr = 0x9f00; /* IDE, IXE, UFE, OFE, DZE, IOE */

	__asm__ volatile("msr fpcr, %0\n\tmrs %0, fpcr" : "+r"(fpcr));
	printf("fpcr trap bits read back: 0x%04llx\n", (unsigned long long)(fpcr & 0x9f00));
	return 0;
}
