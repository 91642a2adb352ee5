/* The 32-bit Arm (AAPCS, hard float) ABI record: what the trampoline
 * (trampoline_armhf.S) plants and finds. Included by abi.h; the offsets
 * are for the assembly. */
#ifndef MG_ABI_ARMHF_H
#define MG_ABI_ARMHF_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	     0 /* r4-r11 after the call */
#define MG_ABI_SAVED_COUNT   8
#define MG_ABI_VSAVED	     32 /* d8-d15 after the call */
#define MG_ABI_VSAVED_COUNT  8
#define MG_ABI_SP_BEFORE     96
#define MG_ABI_SP_AFTER	     100
#define MG_ABI_FRAME	     104 /* the two words at the callee's incoming sp */
#define MG_ABI_FPSCR_BEFORE  112 /* in: FPSCR at entry (the caller's) */
#define MG_ABI_FPSCR_AFTER   116
#define MG_ABI_SP_CALLER     120 /* the trampoline's own sp, restored at its return */
#define MG_ABI_STACK_OFFSET  124 /* in: sp mod 64 at entry */
#define MG_ABI_FPSCR_CALLER  128 /* in: the caller's FPSCR, restored after the call */

/* What the stack alignment at entry may be (docs/contract.md, H5): the
 * case's stack_offset is sp mod 64 at entry, a multiple of 8 (AAPCS
 * 5.2.1.2: "SP mod 8 = 0" at a public interface). */
#define MG_ABI_STACK_STEP	    8
#define MG_ABI_STACK_STEP_KERNEL    8
#define MG_ABI_STACK_AT_ENTRY	    "sp mod 64"
#define MG_ABI_STACK_PROMISE	    "a multiple of 8 for sp at a public interface (AAPCS 5.2.1.2)"
#define MG_ABI_STACK_PROMISE_KERNEL MG_ABI_STACK_PROMISE

/* FPSCR's control bits (the rest are the cumulative flags, and the
 * condition flags of vcmp): a call leaves them as it found them (AAPCS
 * 5.1.2.1, "VFP register usage conventions"; C11 7.6): the trap enables
 * (IOE..IXE, IDE), Len and Stride, RMode, FZ, DN, AHP. */
#define MG_ABI_FPSCR_CONTROL 0x07f79f00u

/* The floating-point environments a case may enter with (docs/contract.md,
 * H4, C17; the case's fpenv, abi.h): what a caller may have set through a
 * support function (fesetround, fesetenv, feraiseexcept): FPSCR's
 * cumulative flags (IOC..IXC, IDC, and NEON's QC), which a call need not
 * preserve and may find set, its rounding mode and FZ; the rest is the
 * caller's. 0 is the caller's own (the flags clear). The names are
 * aarch64's, whose FPCR and FPSR split the same bits. */
#define MG_ABI_FPENV_COUNT 7
#define MG_ABI_FPENV_NAMES                                                                         \
	"default, flags-set, fz, round-up, round-down, round-zero, fz-flags-set"

/* The canaries: each register's own number, so a diagnosis names itself. */
#define MG_ABI_CANARY_R4     0x04040404
#define MG_ABI_CANARY_R5     0x05050505
#define MG_ABI_CANARY_R6     0x06060606
#define MG_ABI_CANARY_R7     0x07070707
#define MG_ABI_CANARY_R8     0x08080808
#define MG_ABI_CANARY_R9     0x09090909
#define MG_ABI_CANARY_R10    0x10101010
#define MG_ABI_CANARY_R11    0x11111111
#define MG_ABI_CANARY_D8     0xd8d8d8d8d8d8d8d8
#define MG_ABI_CANARY_D9     0xd9d9d9d9d9d9d9d9
#define MG_ABI_CANARY_D10    0xdadadadadadadada
#define MG_ABI_CANARY_D11    0xdbdbdbdbdbdbdbdb
#define MG_ABI_CANARY_D12    0xdcdcdcdcdcdcdcdc
#define MG_ABI_CANARY_D13    0xdddddddddddddddd
#define MG_ABI_CANARY_D14    0xdededededededede
#define MG_ABI_CANARY_D15    0xdfdfdfdfdfdfdfdf
#define MG_ABI_CANARY_FRAME0 0xf0f0f0f0
#define MG_ABI_CANARY_FRAME1 0xf1f1f1f1

/* Why the interrupt situation is n/a here (harness/arch/none/step.c):
 * AArch32 has no single-step a program can set on itself (no trap flag,
 * as x86's), and qemu-user does not single-step the programs it runs. */
#define MG_STEP_IMPOSSIBLE "armhf user code cannot single-step itself (AArch32 has no user-mode single-step)"

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

/* Where a routine that returns in Thumb state to the ARM trampoline traps
 * (trampoline_armhf.S): its SIGILL's pc. */
extern const char mg_abi_thumb_return[];

struct mg_abi_record {
	uint32_t saved[MG_ABI_SAVED_COUNT];
	uint64_t vsaved[MG_ABI_VSAVED_COUNT];
	uint32_t sp_before, sp_after;
	uint32_t frame[2];
	uint32_t fpscr_before, fpscr_after;
	uint32_t sp_caller;
	uint32_t stack_offset; /* in: the case's, a multiple of 8 below 64 */
	uint32_t fpscr_caller; /* in: the caller's FPSCR, given back after the call */
};

_Static_assert(offsetof(struct mg_abi_record, vsaved) == MG_ABI_VSAVED, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_before) == MG_ABI_SP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_after) == MG_ABI_SP_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, frame) == MG_ABI_FRAME, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpscr_before) == MG_ABI_FPSCR_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpscr_after) == MG_ABI_FPSCR_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_caller) == MG_ABI_SP_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, stack_offset) == MG_ABI_STACK_OFFSET, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpscr_caller) == MG_ABI_FPSCR_CALLER, "layout");

#define MG_ABI_SAVED_NAMES                                                                         \
	{                                                                                          \
		"r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11"                                   \
	}
#define MG_ABI_SAVED_CANARIES                                                                      \
	{                                                                                          \
		MG_ABI_CANARY_R4, MG_ABI_CANARY_R5, MG_ABI_CANARY_R6, MG_ABI_CANARY_R7,            \
			MG_ABI_CANARY_R8, MG_ABI_CANARY_R9, MG_ABI_CANARY_R10, MG_ABI_CANARY_R11   \
	}
#define MG_ABI_VSAVED_CANARIES                                                                     \
	{                                                                                          \
		MG_ABI_CANARY_D8, MG_ABI_CANARY_D9, MG_ABI_CANARY_D10, MG_ABI_CANARY_D11,          \
			MG_ABI_CANARY_D12, MG_ABI_CANARY_D13, MG_ABI_CANARY_D14, MG_ABI_CANARY_D15 \
	}
#endif

#endif
