/* AArch64: the DC ZVA block size and the optional extensions a variant may
 * assume (--requires zva64, sve, mops, ...). Under qemu-user the -cpu model
 * decides them: cortex-a57 has a 64-byte block, a64fx 256 bytes and SVE,
 * max 512 bytes and SVE; none of qemu 7.2's has MOPS. */
#include "cpu.h"
#include "variant.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SVE_SET_VL
#define PR_SVE_SET_VL 50
#define PR_SVE_GET_VL 51
#endif
#define PR_SVE_VL_LEN_MASK 0xffff

#define DCZID_PROHIBITED (1u << 4) /* DZP: dc zva may not be used */
#define DCZID_BLOCK_LOG2 0xfu	   /* log2 of the block size in 4-byte words */
#define HWCAP_SVE_BIT	 (1ul << 22)
#define HWCAP2_MOPS_BIT	 (1ul << 43)
#define HWCAP2_SME_BIT	 (1ul << 23)

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

/* SVE's vector length is the thread's (Documentation/arm64/sve.rst): the
 * lengths the CPU has are the powers of two that prctl(PR_SVE_SET_VL)
 * sets exactly (it rounds others down), tried once at start-up, before
 * any thread but the first exists. */
static unsigned default_vl, vl_mask;

static void probe_vls(void)
{
	int got = prctl(PR_SVE_GET_VL);

	if (got < 0)
		return;
	default_vl = (unsigned)got & PR_SVE_VL_LEN_MASK;
	for (unsigned k = 0; k < MG_CPU_VL_BITS; k++) {
		int set = prctl(PR_SVE_SET_VL, MG_CPU_VL_MIN << k);
		if (set >= 0 && ((unsigned)set & PR_SVE_VL_LEN_MASK) == MG_CPU_VL_MIN << k)
			vl_mask |= 1u << k;
	}
	prctl(PR_SVE_SET_VL, default_vl);
}

unsigned mg_cpu_vls(void)
{
	mg_cpu_features(); /* probed with the features, once */
	return vl_mask;
}

unsigned mg_cpu_default_vl(void)
{
	mg_cpu_features();
	return default_vl;
}

int mg_cpu_use_vl(unsigned bytes)
{
	/* What this thread has; a new thread inherits its creator's, which
	 * it does not know: UINT_MAX. */
	static _Thread_local unsigned current = UINT_MAX;
	unsigned want = bytes ? bytes : default_vl;
	int set;

	if (want == current || !vl_mask)
		return 0;
	set = prctl(PR_SVE_SET_VL, want);
	if (set < 0 || ((unsigned)set & PR_SVE_VL_LEN_MASK) != want) {
		current = UINT_MAX;
		return -1;
	}
	current = want;
	return 0;
}

/* A load through a tagged pointer, in a child, so that a system without
 * TBI costs the child and not the run. */
static volatile unsigned char tbi_probe = 0x5a;

int mg_cpu_tbi(void)
{
	static int known = -1;
	int status;
	pid_t pid;

	if (known >= 0)
		return known;
	pid = fork();
	if (pid == 0) {
		const volatile unsigned char *tagged =
			(const volatile unsigned char *)((uintptr_t)&tbi_probe | (uintptr_t)0xa5 << 56);
		_exit(*tagged == 0x5a ? 0 : 1);
	}
	known = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0;
	return known;
}

unsigned mg_cpu_detect(void)
{
	unsigned features = zva_feature();

	if (getauxval(AT_HWCAP) & HWCAP_SVE_BIT) {
		features |= MG_FEAT_SVE;
		probe_vls();
	}
	if (getauxval(AT_HWCAP2) & HWCAP2_MOPS_BIT)
		features |= MG_FEAT_MOPS;
	if (getauxval(AT_HWCAP2) & HWCAP2_SME_BIT)
		features |= MG_FEAT_SME;
	return features;
}

/* FPCR is the only control state a variant may leave changed (AArch64 has
 * no direction flag); its Linux default is all zeros: round to nearest, no
 * flush-to-zero, no default NaN, no traps. */
void mg_cpu_reset_state(void)
{
	__asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)0));
}

/* The handler's thread-local accesses go through tpidr_el0, a register
 * that no routine of the table writes; nothing to put right here. */
unsigned mg_cpu_handler_entry(void)
{
	return 0;
}

void mg_cpu_describe_thread_pointer(unsigned foreign, char *out, size_t size)
{
	snprintf(out, size, "the thread pointer was not the thread's (0x%x)", foreign);
}

void mg_cpu_define_vectors(void)
{
	static const unsigned char zero[16] __attribute__((aligned(16)));

#define LOAD_Q(a, b, c, d)                                                                     \
	__asm__ volatile("ldr q" #a ", %0\n\tldr q" #b ", %0\n\tldr q" #c ", %0\n\tldr q" #d ", %0" \
			 : : "m"(zero) : "v" #a, "v" #b, "v" #c, "v" #d)
	LOAD_Q(0, 1, 2, 3);
	LOAD_Q(4, 5, 6, 7);
	LOAD_Q(8, 9, 10, 11);
	LOAD_Q(12, 13, 14, 15);
	LOAD_Q(16, 17, 18, 19);
	LOAD_Q(20, 21, 22, 23);
	LOAD_Q(24, 25, 26, 27);
	LOAD_Q(28, 29, 30, 31);
#undef LOAD_Q
}
