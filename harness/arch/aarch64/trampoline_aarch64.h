/* The AArch64 ABI record: what the trampoline (trampoline_aarch64.S) plants and
 * finds. Included by abi.h; the offsets are for the assembly. */
#ifndef MG_ABI_AARCH64_H
#define MG_ABI_AARCH64_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	    0 /* x19-x29 after the call */
#define MG_ABI_SAVED_COUNT  11
#define MG_ABI_VSAVED	    88 /* d8-d15 (the low 64 bits of v8-v15) after the call */
#define MG_ABI_VSAVED_COUNT 8
#define MG_ABI_X18	    152 /* the platform register after the call */
#define MG_ABI_SP_BEFORE    160
#define MG_ABI_SP_AFTER	    168
#define MG_ABI_FRAME	    176 /* the two words at the callee's incoming sp */
#define MG_ABI_FPCR_BEFORE  192 /* in: FPCR at entry (the caller's, with the case's) */
#define MG_ABI_FPCR_AFTER   200
#define MG_ABI_CHECK_X18    208 /* in: x18 is reserved for this call */
#define MG_ABI_CHECK_FPU    212 /* in: the kernel contract's no-FP/SIMD rule */
#define MG_ABI_FPSR_BEFORE  216 /* with check_fpu: FPSR before and after */
#define MG_ABI_FPSR_AFTER   224
#define MG_ABI_SET_FLAGS    232 /* in: NZCV at entry, in bits 28-31 */
#define MG_ABI_V_AFTER	    240 /* with check_fpu: v0-v31 after the call (512 bytes) */
#define MG_ABI_SP_CALLER    752 /* the trampoline's own sp, restored at its return */
#define MG_ABI_STACK_OFFSET 760 /* in: sp mod 64 at entry */
#define MG_ABI_FPCR_CALLER  768 /* in: the caller's FPCR, restored after the call */
#define MG_ABI_FPSR_ENTRY   776 /* in: FPSR at entry */
#define MG_ABI_CHECK_SME    784 /* in: the CPU has SME: read SVCR after the call */
#define MG_ABI_SVCR_AFTER   792 /* SVCR after the call: PSTATE.SM (bit 0), PSTATE.ZA (bit 1) */

/* What the stack alignment at entry may be (docs/contract.md, A11): the
 * case's stack_offset is sp mod 64 at entry, a multiple of 16 (AAPCS64
 * 6.4.5.2, the kernel's the same). */
#define MG_ABI_STACK_STEP	 16
#define MG_ABI_STACK_STEP_KERNEL 16
#define MG_ABI_STACK_AT_ENTRY	 "sp mod 64"
#define MG_ABI_STACK_PROMISE	 "a multiple of 16 for sp at a public interface (AAPCS64 6.4.5.2)"
#define MG_ABI_STACK_PROMISE_KERNEL MG_ABI_STACK_PROMISE

/* The floating-point environments a case may enter with (docs/contract.md,
 * A7, C17; the case's fpenv, abi.h): what a caller may have set through a
 * support function (fesetround, fesetenv, feraiseexcept): FPSR's
 * cumulative flags, which "may have any value on entry" (AAPCS64 6.1.2),
 * FPCR's rounding mode and FZ; the rest of FPCR is the caller's. 0 is the
 * caller's own (FPSR clear). */
#define MG_ABI_FPENV_COUNT 7
#define MG_ABI_FPENV_NAMES                                                                         \
	"default, flags-set, fz, round-up, round-down, round-zero, fz-flags-set"

/* The canaries: each register's own number, so a diagnosis names itself.
 * v8-v15 get a canary in both halves; only the low halves (d8-d15) are
 * callee-saved, so only they are checked. */
#define MG_ABI_CANARY_X18    0x1818181818181818
#define MG_ABI_CANARY_X19    0x1919191919191919
#define MG_ABI_CANARY_X20    0x2020202020202020
#define MG_ABI_CANARY_X21    0x2121212121212121
#define MG_ABI_CANARY_X22    0x2222222222222222
#define MG_ABI_CANARY_X23    0x2323232323232323
#define MG_ABI_CANARY_X24    0x2424242424242424
#define MG_ABI_CANARY_X25    0x2525252525252525
#define MG_ABI_CANARY_X26    0x2626262626262626
#define MG_ABI_CANARY_X27    0x2727272727272727
#define MG_ABI_CANARY_X28    0x2828282828282828
#define MG_ABI_CANARY_X29    0x2929292929292929
#define MG_ABI_CANARY_D8     0xd8d8d8d8d8d8d8d8
#define MG_ABI_CANARY_D9     0xd9d9d9d9d9d9d9d9
#define MG_ABI_CANARY_D10    0xdadadadadadadada
#define MG_ABI_CANARY_D11    0xdbdbdbdbdbdbdbdb
#define MG_ABI_CANARY_D12    0xdcdcdcdcdcdcdcdc
#define MG_ABI_CANARY_D13    0xdddddddddddddddd
#define MG_ABI_CANARY_D14    0xdededededededede
#define MG_ABI_CANARY_D15    0xdfdfdfdfdfdfdfdf
#define MG_ABI_CANARY_UPPER  0x0123456789abcdef /* v8-v15 bits 64-127, unchecked */
#define MG_ABI_CANARY_FRAME0 0xf0f0f0f0f0f0f0f0
#define MG_ABI_CANARY_FRAME1 0xf1f1f1f1f1f1f1f1

/* Why the interrupt situation is n/a here (harness/arch/none/step.c): single-step
 * (MDSCR_EL1.SS) is set by the kernel for a debugger (ptrace), never by
 * the program, and qemu-user does not single-step the programs it runs. */
#define MG_STEP_IMPOSSIBLE "aarch64 user code cannot single-step itself (only a debugger, through the kernel, can)"

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct mg_abi_record {
	uint64_t saved[MG_ABI_SAVED_COUNT];
	uint64_t vsaved[MG_ABI_VSAVED_COUNT];
	uint64_t x18;
	uint64_t sp_before, sp_after;
	uint64_t frame[2];
	uint64_t fpcr_before, fpcr_after;
	uint32_t check_x18;
	uint32_t check_fpu; /* in: poison v0-v7, v16-v31 and compare them all */
	uint64_t fpsr_before, fpsr_after;
	uint32_t set_flags; /* in: AAPCS64 leaves NZCV undefined at entry */
	_Alignas(16) unsigned char v_after[32][16];
	uint64_t sp_caller;
	uint32_t stack_offset; /* in: the case's, a multiple of 16 below 64 */
	uint64_t fpcr_caller;  /* in: the caller's FPCR, given back after the call */
	uint64_t fpsr_entry;   /* in: FPSR at entry */
	uint32_t check_sme;    /* in: SVCR exists (HWCAP2_SME) */
	uint64_t svcr_after;   /* entered as 0: non-streaming, ZA off */
};

_Static_assert(offsetof(struct mg_abi_record, vsaved) == MG_ABI_VSAVED, "layout");
_Static_assert(offsetof(struct mg_abi_record, x18) == MG_ABI_X18, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_before) == MG_ABI_SP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_after) == MG_ABI_SP_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, frame) == MG_ABI_FRAME, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpcr_before) == MG_ABI_FPCR_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpcr_after) == MG_ABI_FPCR_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_x18) == MG_ABI_CHECK_X18, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_fpu) == MG_ABI_CHECK_FPU, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpsr_before) == MG_ABI_FPSR_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpsr_after) == MG_ABI_FPSR_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, v_after) == MG_ABI_V_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_caller) == MG_ABI_SP_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, stack_offset) == MG_ABI_STACK_OFFSET, "layout");
_Static_assert(offsetof(struct mg_abi_record, set_flags) == MG_ABI_SET_FLAGS, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpcr_caller) == MG_ABI_FPCR_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpsr_entry) == MG_ABI_FPSR_ENTRY, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_sme) == MG_ABI_CHECK_SME, "layout");
_Static_assert(offsetof(struct mg_abi_record, svcr_after) == MG_ABI_SVCR_AFTER, "layout");

#define MG_ABI_SAVED_NAMES                                                                         \
	{                                                                                          \
		"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29"        \
	}
#define MG_ABI_SAVED_CANARIES                                                                      \
	{                                                                                          \
		MG_ABI_CANARY_X19, MG_ABI_CANARY_X20, MG_ABI_CANARY_X21, MG_ABI_CANARY_X22,        \
			MG_ABI_CANARY_X23, MG_ABI_CANARY_X24, MG_ABI_CANARY_X25,                   \
			MG_ABI_CANARY_X26, MG_ABI_CANARY_X27, MG_ABI_CANARY_X28, MG_ABI_CANARY_X29 \
	}
#define MG_ABI_VSAVED_CANARIES                                                                     \
	{                                                                                          \
		MG_ABI_CANARY_D8, MG_ABI_CANARY_D9, MG_ABI_CANARY_D10, MG_ABI_CANARY_D11,          \
			MG_ABI_CANARY_D12, MG_ABI_CANARY_D13, MG_ABI_CANARY_D14, MG_ABI_CANARY_D15 \
	}
#endif

#endif
