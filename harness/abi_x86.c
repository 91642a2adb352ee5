/* x86-64 ABI rules: rbx, rbp and r12-r15 are preserved, the stack pointer
 * comes back where it was, the direction flag is clear, and the control bits
 * of MXCSR and the x87 control word are unchanged (MXCSR's exception flags
 * are the caller's to lose). */
#include "abi.h"
#include "cpu.h"
#include "variant.h"

#include <cpuid.h>
#include <stdio.h>

#define X86_FLAGS_DF	 (1u << 10)
#define MXCSR_CONTROL	 0xffc0u		 /* DAZ, exception masks, rounding, FZ */
#define XINUSE_AVX_UPPER ((1u << 2) | (1u << 6)) /* YMM_Hi128, ZMM_Hi256 */

int mg_abi_has_avx;
int mg_abi_has_xinuse;

static const char *const saved_names[MG_ABI_SAVED_COUNT] = {"rbx", "rbp", "r12",
							    "r13", "r14", "r15"};
static const uint64_t canaries[MG_ABI_SAVED_COUNT] = {
	MG_ABI_CANARY_RBX, MG_ABI_CANARY_RBP, MG_ABI_CANARY_R12,
	MG_ABI_CANARY_R13, MG_ABI_CANARY_R14, MG_ABI_CANARY_R15,
};

static uint32_t caller_mxcsr;
static uint16_t caller_fpucw;

void mg_abi_prepare(struct mg_abi_record *rec, int read_xinuse)
{
	rec->mxcsr_before = caller_mxcsr;
	rec->fpucw_before = caller_fpucw;
	rec->read_xinuse = (uint32_t)(read_xinuse && mg_abi_has_xinuse);
}

void mg_abi_init(void)
{
	unsigned a, b, c, d;

	__asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(caller_mxcsr), "=m"(caller_fpucw));
	/* The OS must have enabled AVX state (XCR0) too, or vzeroupper faults:
	 * the feature detection checks both. */
	mg_abi_has_avx = (mg_cpu_detect() & MG_FEAT_AVX) != 0;
	if (mg_abi_has_avx && __get_cpuid_count(0xd, 1, &a, &b, &c, &d))
		mg_abi_has_xinuse = (a & (1u << 2)) != 0;
}

static int clobbered_register(const struct mg_abi_record *rec, char *out, size_t size)
{
	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		if (rec->saved[i] != canaries[i]) {
			snprintf(out, size, "%s clobbered (0x%016llx -> 0x%016llx)", saved_names[i],
				 (unsigned long long)canaries[i],
				 (unsigned long long)rec->saved[i]);
			return 1;
		}
	return 0;
}

int mg_abi_violation(const struct mg_abi_record *rec, char *out, size_t size)
{
	if (clobbered_register(rec, out, size))
		return 1;
	if (rec->sp_after != rec->sp_before) {
		snprintf(out, size, "stack pointer moved by %+lld bytes",
			 (long long)(rec->sp_after - rec->sp_before));
		return 1;
	}
	if (rec->frame[0] != MG_ABI_CANARY_FRAME0 || rec->frame[1] != MG_ABI_CANARY_FRAME1) {
		snprintf(out, size,
			 "the caller's stack frame above the return address was "
			 "overwritten");
		return 1;
	}
	if (rec->flags & X86_FLAGS_DF) {
		snprintf(out, size, "direction flag left set");
		return 1;
	}
	if ((rec->mxcsr_after ^ rec->mxcsr_before) & MXCSR_CONTROL) {
		snprintf(out, size, "MXCSR control bits changed (0x%04x -> 0x%04x)",
			 rec->mxcsr_before, rec->mxcsr_after);
		return 1;
	}
	if (rec->fpucw_after != rec->fpucw_before) {
		snprintf(out, size, "x87 control word changed (0x%04x -> 0x%04x)",
			 rec->fpucw_before, rec->fpucw_after);
		return 1;
	}
	return 0;
}

int mg_abi_dirty_upper(const struct mg_abi_record *rec)
{
	return rec->read_xinuse && (rec->xinuse & XINUSE_AVX_UPPER);
}
