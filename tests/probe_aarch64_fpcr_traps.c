/* Probe (tests/run.d/arch_aarch64.sh, docs/contract.md A6): writes FPCR's
 * bits that a caller may set but no case varies, and prints what reads
 * back: the exception-control (trap enable) bits, and FEAT_AFP's AH and
 * FIZ. A CPU or emulator without trapped floating-point exceptions (or
 * without FEAT_AFP) reads them as zero, and then no caller can run with
 * them set. */
#include <stdint.h>
#include <stdio.h>

static uint64_t read_back(uint64_t bits)
{
	uint64_t fpcr = bits;

	__asm__ volatile("msr fpcr, %0\n\tmrs %0, fpcr" : "+r"(fpcr));
	return fpcr & bits;
}

int main(void)
{
	const uint64_t traps = 0x9f00; /* IDE, IXE, UFE, OFE, DZE, IOE */
	const uint64_t afp = 0x3;      /* AH (bit 1), FIZ (bit 0) */

	printf("fpcr trap bits read back: 0x%04llx\n", (unsigned long long)read_back(traps));
	printf("fpcr AH and FIZ read back: 0x%llx\n", (unsigned long long)read_back(afp));
	return 0;
}
