/* The x86-64 ABI record: what the trampoline (trampoline_x86_64.S) plants and
 * finds. Included by abi.h; the offsets are for the assembly. */
#ifndef MG_ABI_X86_64_H
#define MG_ABI_X86_64_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	    0 /* callee-saved registers after the call */
#define MG_ABI_SAVED_COUNT  6 /* x86-64: rbx rbp r12 r13 r14 r15 */
#define MG_ABI_SP_BEFORE    48
#define MG_ABI_SP_AFTER	    56
#define MG_ABI_FLAGS	    64 /* rflags after the call */
#define MG_ABI_FRAME	    72 /* the two stack words above the return address */
#define MG_ABI_XINUSE	    88 /* XGETBV(1) after the call, if supported */
#define MG_ABI_MXCSR_BEFORE 96 /* in: at entry (the case's), compared after the call */
#define MG_ABI_MXCSR_AFTER  100
#define MG_ABI_FPUCW_BEFORE 104 /* in: likewise (the x87 control word) */
#define MG_ABI_FPUCW_AFTER  106
#define MG_ABI_READ_XINUSE  108 /* in: read XINUSE after this call */
#define MG_ABI_CHECK_FPU    112 /* in: the kernel contract's no-FPU rule */
#define MG_ABI_CHECK_X87    116 /* in: probe the x87 stack after this call */
#define MG_ABI_FPUSW_AFTER  120 /* the x87 status word after that probe */
#define MG_ABI_SET_FLAGS    124 /* in: enter with CF, PF, AF, ZF, SF and OF set */
#define MG_ABI_FX_BEFORE    128 /* FXSAVE images around the call (512 bytes) */
#define MG_ABI_FX_AFTER	    640
#define MG_ABI_HI16_AFTER   1152 /* xmm16-xmm31 after the call (AVX-512) */
#define MG_ABI_FX_XMM	    160 /* where xmm0 sits in an FXSAVE image */
#define MG_ABI_FX_XMM_COUNT 16	/* xmm0-xmm15 (xmm16-31 apart, hi16_after) */
#define MG_ABI_SP_CALLER    1408 /* the trampoline's own rsp, restored at its return */
#define MG_ABI_STACK_OFFSET 1416 /* in: rsp mod 64 at the call, i.e. (rsp + 8) at entry */
#define MG_ABI_SET_FPENV    1420 /* in: enter with the case's floating-point environment */
#define MG_ABI_MXCSR_CALLER 1424 /* in: the caller's MXCSR and x87 control word, */
#define MG_ABI_FPUCW_CALLER 1428 /* restored after the call */
#define MG_ABI_FPENV_IMAGE  1432 /* in: the x87 environment (FLDENV's 28 bytes) */
#define MG_ABI_FSBASE_BEFORE 1440 /* in: the thread's fs base and selector, */
#define MG_ABI_FSBASE_AFTER  1448 /* as found after the call */
#define MG_ABI_FS_BEFORE     1456
#define MG_ABI_FS_AFTER	     1458
#define MG_ABI_CHECK_FS	     1460 /* in: without FSGSBASE, ask the kernel for the base */
/* A register convention of the routine's own (engine/convention.h): every
 * general register but rsp enters with regs_in (the arguments where the
 * convention puts them, a canary elsewhere) and is stored in regs_out
 * after the call; the trampoline returns regs_out[conv_ret]. */
#define MG_ABI_CONV	     1464 /* in: enter with regs_in, not the C convention */
#define MG_ABI_CONV_RET	     1468 /* in: the result's register (0, rax, by default) */
#define MG_ABI_REGS_IN	     1472 /* in: 16 registers, in the order of MG_ABI_GPR_NAMES */
#define MG_ABI_REGS_OUT	     1600 /* every register after the call (rsp's slot unused) */

/* set_fpenv: 0 the caller's environment, 1 the case's control words,
 * MG_ABI_FPENV_WHOLE the case's whole x87 environment (FLDENV: its status
 * flags, or a clean status word under unmasked exceptions). */
#define MG_ABI_FPENV_WHOLE 2
/* The floating-point environments a case may enter with (abi.c). */
#define MG_ABI_FPENV_COUNT 7
#define MG_ABI_FPENV_NAMES                                                                         \
	"default, flags-set, ftz-daz, round-up, round-down, round-zero, unmasked"

/* What the stack alignment at entry may be (docs/contract.md, X9, XK4): the
 * case's stack_offset is (rsp + 8) mod 64 at entry, a multiple of 16 for
 * user code (psABI-64 3.2.2), of 8 for the kernel's (-mpreferred-stack-boundary=3). */
#define MG_ABI_STACK_STEP	 16
#define MG_ABI_STACK_STEP_KERNEL 8
#define MG_ABI_STACK_AT_ENTRY	 "(rsp + 8) mod 64"
#define MG_ABI_STACK_PROMISE	 "a multiple of 16 for (rsp + 8) at entry (psABI-64 3.2.2)"
#define MG_ABI_STACK_PROMISE_KERNEL                                                                \
	"a multiple of 8 for rsp at entry (the kernel's -mpreferred-stack-boundary=3)"

/* Hex digits a register is printed with in a diagnosis. */
#define MG_ABI_REG_DIGITS 16
/* Where the two frame canaries sit, for a diagnosis. */
#define MG_ABI_FRAME_WHERE "above the return address"

/* The canaries: recognisable in a diagnosis, and different per register. */
#define MG_ABI_CANARY_RBX    0x1111111111111111
#define MG_ABI_CANARY_RBP    0x2222222222222222
#define MG_ABI_CANARY_R12    0x3333333333333333
#define MG_ABI_CANARY_R13    0x4444444444444444
#define MG_ABI_CANARY_R14    0x5555555555555555
#define MG_ABI_CANARY_R15    0x6666666666666666
#define MG_ABI_CANARY_FRAME0 0x7777777777777777
#define MG_ABI_CANARY_FRAME1 0x8888888888888888
/* Under a convention of the routine's own, register i (not an argument,
 * not zeroed) enters with this: c1c1... for rax up to d0d0... for r15. */
#define MG_ABI_CANARY_GPR(i) (0xc1c1c1c1c1c1c1c1ull + (unsigned long long)(i) * 0x0101010101010101ull)

/* The general registers, numbered as the kernel's exception table and the
 * instruction encoding number them (a convention names them so). */
#define MG_ABI_GPR_COUNT 16
#define MG_ABI_GPR_SP	 4 /* rsp: never an argument, a result or a clobber */
#define MG_ABI_GPR_NAMES                                                                           \
	{                                                                                          \
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",  \
			"r12", "r13", "r14", "r15"                                                 \
	}
#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

#include "trampoline_conv.h"

typedef uint64_t mg_abi_gpr_t; /* a general register */

struct mg_abi_record {
	uint64_t saved[MG_ABI_SAVED_COUNT];
	uint64_t sp_before, sp_after;
	uint64_t flags;
	uint64_t frame[2];
	uint64_t xinuse;
	uint32_t mxcsr_before, mxcsr_after;
	uint16_t fpucw_before, fpucw_after;
	uint32_t read_xinuse; /* in: XGETBV(1) costs 10-15 ns, so not always */
	uint32_t check_fpu;   /* in: poison and compare the FPU state (kernel) */
	uint32_t check_x87;   /* in: is the CPU back in x87 mode? (a sample of calls) */
	uint16_t fpusw_after; /* the x87 status word after pushing one value */
	uint32_t set_flags;   /* in: the ABI leaves the flags but DF undefined at entry */
	_Alignas(16) unsigned char fx_before[512]; /* FXSAVE after the poison */
	_Alignas(16) unsigned char fx_after[512];  /* FXSAVE after the call */
	unsigned char hi16_after[16][16];	   /* xmm16-31 after the call */
	uint64_t sp_caller;
	uint32_t stack_offset; /* in: the case's, a multiple of 8 below 64 */
	uint32_t set_fpenv;    /* in: load MXCSR (mxcsr_before) and the x87 image */
	uint32_t mxcsr_caller;
	uint16_t fpucw_caller;
	const unsigned char *fpenv_image;
	uint64_t fsbase_before, fsbase_after; /* fs: the thread pointer (X13) */
	uint16_t fs_before, fs_after;
	uint32_t check_fs; /* in: arch_prctl(ARCH_GET_FS) after this call */
	MG_ABI_CONV_FIELDS
};

#define MG_ABI_SAVED_NAMES                                                                         \
	{                                                                                          \
		"rbx", "rbp", "r12", "r13", "r14", "r15"                                           \
	}
#define MG_ABI_SAVED_CANARIES                                                                      \
	{                                                                                          \
		MG_ABI_CANARY_RBX, MG_ABI_CANARY_RBP, MG_ABI_CANARY_R12, MG_ABI_CANARY_R13,        \
			MG_ABI_CANARY_R14, MG_ABI_CANARY_R15                                       \
	}

/* The kernel lets user code read and write the fs base itself (HWCAP2
 * FSGSBASE, Linux 5.9): the trampoline compares it on every call. */
extern int mg_abi_has_fsgsbase;
#endif

#endif
