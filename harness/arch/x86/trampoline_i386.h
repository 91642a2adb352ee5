/* The i386 ABI record: what the trampoline (trampoline_i386.S) plants and finds.
 * Included by abi.h; the offsets are for the assembly. */
#ifndef MG_ABI_I386_H
#define MG_ABI_I386_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	    0 /* callee-saved registers after the call */
#define MG_ABI_SAVED_COUNT  4 /* i386: ebx esi edi ebp */
#define MG_ABI_SP_BEFORE    16
#define MG_ABI_SP_AFTER	    20
#define MG_ABI_FLAGS	    24 /* eflags after the call */
#define MG_ABI_FRAME	    28 /* the two stack words above the argument words */
#define MG_ABI_XINUSE	    36 /* XGETBV(1) after the call, if supported */
#define MG_ABI_MXCSR_BEFORE 44 /* in: at entry (the case's), compared after the call */
#define MG_ABI_MXCSR_AFTER  48
#define MG_ABI_FPUCW_BEFORE 52 /* in: likewise (the x87 control word) */
#define MG_ABI_FPUCW_AFTER  54
#define MG_ABI_READ_XINUSE  56 /* in: read XINUSE after this call */
#define MG_ABI_CHECK_X87    60 /* in: probe the x87 stack after this call */
#define MG_ABI_FPUSW_AFTER  64 /* the x87 status word after that probe */
#define MG_ABI_SET_FLAGS    68 /* in: enter with CF, PF, AF, ZF, SF and OF set */
#define MG_ABI_STACK_OFFSET 72 /* in: esp mod 64 at the call, i.e. (esp + 4) at entry */
#define MG_ABI_SET_FPENV    76 /* in: enter with the case's floating-point environment */
#define MG_ABI_MXCSR_CALLER 80 /* in: the caller's MXCSR and x87 control word, */
#define MG_ABI_FPUCW_CALLER 84 /* restored after the call */
#define MG_ABI_FPENV_IMAGE  88 /* in: the x87 environment (FLDENV's 28 bytes) */
#define MG_ABI_CHECK_FPU    92 /* in: the kernel contract's no-FPU rule */
#define MG_ABI_FX_BEFORE    96 /* FXSAVE images around the call (512 bytes) */
#define MG_ABI_FX_AFTER	    608
#define MG_ABI_GSBASE_BEFORE 1120 /* in: the thread's gs base, */
#define MG_ABI_CHECK_GS	     1124 /* in: compared with get_thread_area after this call */
#define MG_ABI_GS_BEFORE     1128 /* the gs selector before and after the call */
#define MG_ABI_GS_AFTER	     1130
#define MG_ABI_FS_TRAMP	     1132 /* in: the trampoline's own fs (abi.c) */
#define MG_ABI_GS_DESC	     1136 /* get_thread_area's answer (struct user_desc) */
#define MG_ABI_GS_DESC_RET   1152 /* its return value */
#define MG_ABI_GS_DESC_THREAD 1156 /* in: the thread's descriptor, to put back */
/* A register convention of the routine's own (engine/convention.h), as on
 * x86-64: every general register but esp enters as regs_in says (the
 * arguments where the convention puts them, a canary elsewhere) and is
 * stored in regs_out after the call; the trampoline returns
 * regs_out[conv_ret]. */
#define MG_ABI_CONV	     1160 /* in: enter with regs_in, not the C convention */
#define MG_ABI_CONV_RET	     1164 /* in: the register returned (0: eax) */
#define MG_ABI_REGS_IN	     1168 /* in: 8 registers, in the order of MG_ABI_GPR_NAMES */
#define MG_ABI_REGS_OUT	     1200 /* every register after the call (esp's slot unused) */
#define MG_ABI_FX_XMM	    160 /* where xmm0 sits in an FXSAVE image */
#define MG_ABI_FX_XMM_COUNT 8	/* xmm0-xmm7 */

/* set_fpenv: 0 the caller's environment, 1 the case's control words,
 * MG_ABI_FPENV_WHOLE the case's whole x87 environment (FLDENV: its status
 * flags, or a clean status word under unmasked exceptions). */
#define MG_ABI_FPENV_WHOLE 2
/* The floating-point environments a case may enter with (abi.c). */
#define MG_ABI_FPENV_COUNT 7
#define MG_ABI_FPENV_NAMES                                                                         \
	"default, flags-set, ftz-daz, round-up, round-down, round-zero, unmasked"

/* What the stack alignment at entry may be (docs/contract.md, I5, IK2): the
 * case's stack_offset is (esp + 4) mod 64 at entry, a multiple of 16 for
 * user code (psABI-32 2.2.2), of 4 for the kernel's (cc_stack_align4). */
#define MG_ABI_STACK_STEP	 16
#define MG_ABI_STACK_STEP_KERNEL 4
#define MG_ABI_STACK_AT_ENTRY	 "(esp + 4) mod 64"
#define MG_ABI_STACK_PROMISE	 "a multiple of 16 for (esp + 4) at entry (psABI-32 2.2.2)"
#define MG_ABI_STACK_PROMISE_KERNEL "a multiple of 4 for esp (the kernel's cc_stack_align4)"

/* Under a convention of the routine's own, register i (not an argument,
 * not zero=) enters with this. */
#define MG_ABI_CANARY_GPR(i) (0xc1c1c1c1u + (unsigned)(i) * 0x01010101u)
/* The general registers, numbered as the instruction encoding numbers
 * them (a convention names them so). */
#define MG_ABI_GPR_COUNT 8
#define MG_ABI_GPR_SP	 4 /* esp: never an argument, a result or a clobber */
#define MG_ABI_GPR_NAMES                                                                           \
	{                                                                                          \
		"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"                             \
	}

/* Hex digits a register is printed with in a diagnosis. */
#define MG_ABI_REG_DIGITS 8
/* Where the two frame canaries sit, for a diagnosis. */
#define MG_ABI_FRAME_WHERE "above the argument words"

/* The canaries: recognisable in a diagnosis, and different per register. */
#define MG_ABI_CANARY_EBX    0x11111111
#define MG_ABI_CANARY_ESI    0x22222222
#define MG_ABI_CANARY_EDI    0x33333333
#define MG_ABI_CANARY_EBP    0x44444444
#define MG_ABI_CANARY_FRAME0 0x77777777
#define MG_ABI_CANARY_FRAME1 0x88888888
#ifndef __ASSEMBLER__
#include <asm/ldt.h>
#include <stddef.h>
#include <stdint.h>

#include "trampoline_conv.h"

typedef uint32_t mg_abi_gpr_t; /* a general register */

struct mg_abi_record {
	uint32_t saved[MG_ABI_SAVED_COUNT];
	uint32_t sp_before, sp_after;
	uint32_t flags;
	uint32_t frame[2];
	uint64_t xinuse;		    /* 4-byte aligned in a struct on i386 */
	uint32_t mxcsr_before, mxcsr_after; /* both 0 on a CPU without SSE */
	uint16_t fpucw_before, fpucw_after;
	uint32_t read_xinuse; /* in: XGETBV(1) costs 10-15 ns, so not always */
	uint32_t check_x87;   /* in: is the CPU back in x87 mode? (a sample of calls) */
	uint16_t fpusw_after; /* the x87 status word after pushing one value */
	uint32_t set_flags;   /* in: the ABI leaves the flags but DF undefined at entry */
	uint32_t stack_offset; /* in: the case's, a multiple of 4 below 64 */
	uint32_t set_fpenv;    /* in: load MXCSR (mxcsr_before, with SSE) and the x87 image */
	uint32_t mxcsr_caller;
	uint16_t fpucw_caller;
	const unsigned char *fpenv_image;
	uint32_t check_fpu; /* in: poison and compare the FPU state (kernel) */
	_Alignas(16) unsigned char fx_before[512]; /* FXSAVE after the poison */
	_Alignas(16) unsigned char fx_after[512];  /* FXSAVE after the call */
	uint32_t gsbase_before; /* gs: the thread pointer (I7) */
	uint32_t check_gs;	/* in: get_thread_area after this call */
	uint16_t gs_before, gs_after;
	uint16_t fs_tramp;
	struct user_desc gs_desc; /* in: its entry_number; out: the base after the call */
	int32_t gs_desc_ret;
	const struct user_desc *gs_desc_thread;
	MG_ABI_CONV_FIELDS
};

#define MG_ABI_SAVED_NAMES                                                                         \
	{                                                                                          \
		"ebx", "esi", "edi", "ebp"                                                         \
	}
#define MG_ABI_SAVED_CANARIES                                                                      \
	{                                                                                          \
		MG_ABI_CANARY_EBX, MG_ABI_CANARY_ESI, MG_ABI_CANARY_EDI, MG_ABI_CANARY_EBP         \
	}

/* MXCSR exists only with SSE: the trampoline reads and restores it only
 * when this is set (mg_abi_init). */
extern int mg_abi_has_sse;
#endif

#endif
