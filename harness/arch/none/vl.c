/* An arch with no vector length for a thread to choose (x86's vectors have
 * the width their instructions name; riscv64's VLEN is the CPU model's,
 * one per process; armhf's NEON is 128 bits): SVE's prctl is aarch64's. */
#include "cpu.h"

unsigned mg_cpu_vls(void)
{
	return 0;
}

unsigned mg_cpu_default_vl(void)
{
	return 0;
}

int mg_cpu_use_vl(unsigned bytes)
{
	return bytes ? -1 : 0;
}
