/* armhf: what a variant may assume beyond Debian's baseline (ARMv7-A with
 * VFPv3-D16): Advanced SIMD (--requires neon) and the 32 double registers
 * (--requires vfpd32), both from HWCAP. Under qemu-user the -cpu model
 * decides them (cortex-a15 and cortex-a9 have NEON; cortex-a7 too). */
#include "cpu.h"
#include "variant.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>

#define HWCAP_NEON   (1ul << 12)
#define HWCAP_VFPD32 (1ul << 19)

unsigned mg_cpu_detect(void)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	unsigned features = 0;

	if (hwcap & HWCAP_NEON)
		features |= MG_FEAT_NEON;
	if (hwcap & HWCAP_VFPD32)
		features |= MG_FEAT_VFPD32;
	return features;
}

/* Linux on 32-bit Arm ignores no address bits: a tagged pointer faults. */
int mg_cpu_tbi(void)
{
	return 0;
}

/* FPSCR's control bits are the only control state a variant may leave
 * changed that the C code after it depends on; Linux starts a process
 * with them 0 (round to nearest, no flush-to-zero, no default NaN, no
 * traps). The cumulative flags are cleared too. */
void mg_cpu_reset_state(void)
{
	__asm__ volatile("vmsr fpscr, %0" : : "r"((uint32_t)0));
}

/* The handler's thread-local accesses go through TPIDRURO, which user
 * code cannot write; nothing to put right here. */
unsigned mg_cpu_handler_entry(void)
{
	return 0;
}

void mg_cpu_describe_thread_pointer(unsigned foreign, char *out, size_t size)
{
	snprintf(out, size, "the thread pointer was not the thread's (0x%x)", foreign);
}

/* d0-d15 only: the harness is built for VFPv3-D16, so its own code never
 * zeroes d16-d31 with the idiom memcheck misreads. */
void mg_cpu_define_vectors(void)
{
	static const uint64_t zero[16];

	__asm__ volatile("vldm %0, {d0-d15}"
			 :
			 : "r"(zero), "m"(zero)
			 : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11",
			   "d12", "d13", "d14", "d15");
}
