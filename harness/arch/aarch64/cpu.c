/* AArch64: the DC ZVA block size and the optional extensions a variant may
 * assume (--requires zva64, sve, mops, ...). Under qemu-user the -cpu model
 * decides them: cortex-a57 has a 64-byte block, a64fx 256 bytes and SVE,
 * max 512 bytes and SVE; none of qemu 7.2's has MOPS. */
#include "cpu.h"
#include "variant.h"

#include <stdint.h>
#include <sys/auxv.h>

#define DCZID_PROHIBITED (1u << 4) /* DZP: dc zva may not be used */
#define DCZID_BLOCK_LOG2 0xfu	   /* log2 of the block size in 4-byte words */
#define HWCAP_SVE_BIT	 (1ul << 22)
#define HWCAP2_MOPS_BIT	 (1ul << 43)

static unsigned zva_feature(void)
{
	uint64_t dczid;
	unsigned bytes;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
	if (dczid & DCZID_PROHIBITED)
		return 0;
	bytes = 4u << (dczid & DCZID_BLOCK_LOG2);
	switch (bytes) {
	case 64:
		return MG_FEAT_ZVA64;
	case 256:
		return MG_FEAT_ZVA256;
	case 512:
		return MG_FEAT_ZVA512;
	default:
		return 0;
	}
}

unsigned mg_cpu_detect(void)
{
	unsigned features = zva_feature();

	if (getauxval(AT_HWCAP) & HWCAP_SVE_BIT)
		features |= MG_FEAT_SVE;
	if (getauxval(AT_HWCAP2) & HWCAP2_MOPS_BIT)
		features |= MG_FEAT_MOPS;
	return features;
}

/* FPCR is the only control state a variant may leave changed (AArch64 has
 * no direction flag); its Linux default is all zeros: round to nearest, no
 * flush-to-zero, no default NaN, no traps. */
void mg_cpu_reset_state(void)
{
	__asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)0));
}
