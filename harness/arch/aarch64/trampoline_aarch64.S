/* The AArch64 ABI trampoline.
 *
 * uint64_t mg_abi_call(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
 *			struct mg_abi_record *rec)
 *	x0 = fn, x1-x3 = the arguments, x4 = rec.
 *
 * Saves the caller's x19-x30, x18 and d8-d15, loads a canary into each of
 * x19-x29 and x18 and into all 128 bits of v8-v15, moves sp to the case's
 * alignment (the record's stack_offset), puts two canary words at the
 * callee's incoming sp (the callee owns only what lies below it), and
 * calls fn(a0, a1, a2) with FPSR and FPCR as the case has them at entry
 * (the record's fpsr_entry and fpcr_before). Afterwards it records the
 * registers, the stack pointer, the two words and FPCR.
 * It trusts nothing the callee may have broken: the record is found again
 * through a global, the stack pointer comes back from the record, and the
 * caller's FPCR is put back if the call left another.
 * Under the kernel contract's no-FP/SIMD rule (check_fpu) it also fills
 * v0-v7 and v16-v31 with a poison pattern and records FPSR before the call,
 * and all of v0-v31 and FPSR after it: kernel code that touches any of
 * them without kernel_neon_begin corrupts the interrupted task's state.
 */
#include "abi.h"
#include "asmdefs.h"

/* Our frame: the caller's registers (its lowest 16 bytes unused). The
 * callee's sp is below it, at the case's alignment, where the two canary
 * words are, then the sp of our frame, for the CFI. */
#define FRAME_CANARIES	0
#define CALLER_SP_SLOT	16
#define CALL_FRAME	32
#define SAVE_X19	16	/* x19-x28 in pairs, then x29 and x30 */
#define SAVE_X29	96
#define SAVE_X18	112
#define SAVE_D8		128	/* d8-d15 in pairs */
#define FRAME_SIZE	192

/* The canary table: x18-x29, the frame words, then v8-v15 whole. */
#define TABLE_X18	0
#define TABLE_FRAME	96
#define TABLE_V8	112

	.section .rodata
	.p2align 4
canaries:
	.quad	MG_ABI_CANARY_X18, MG_ABI_CANARY_X19
	.quad	MG_ABI_CANARY_X20, MG_ABI_CANARY_X21
	.quad	MG_ABI_CANARY_X22, MG_ABI_CANARY_X23
	.quad	MG_ABI_CANARY_X24, MG_ABI_CANARY_X25
	.quad	MG_ABI_CANARY_X26, MG_ABI_CANARY_X27
	.quad	MG_ABI_CANARY_X28, MG_ABI_CANARY_X29
	.quad	MG_ABI_CANARY_FRAME0, MG_ABI_CANARY_FRAME1
	/* v8-v15: the checked low half, then the unchecked upper half. */
	.quad	MG_ABI_CANARY_D8, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D9, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D10, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D11, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D12, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D13, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D14, MG_ABI_CANARY_UPPER
	.quad	MG_ABI_CANARY_D15, MG_ABI_CANARY_UPPER

fpu_poison:
	.quad	0x5a5a5a5a5a5a5a5a, 0xa5a5a5a5a5a5a5a5
	.quad	0x5a5a5a5a5a5a5a5a, 0xa5a5a5a5a5a5a5a5

	.bss
	.p2align 3
current_record:
	.quad	0

/* The CFA while sp is the realigned one: DW_CFA_def_cfa_expression of
 *	DW_OP_breg31 (sp) CALLER_SP_SLOT; DW_OP_deref;
 *	DW_OP_plus_uconst FRAME_SIZE (192: two LEB128 bytes)
 * (no fixed offset leads back to our frame). */
#define CFA_FROM_SLOT                                                                              \
	.cfi_escape 0x0f, 6, 0x8f, CALLER_SP_SLOT, 0x06, 0x23, 0xc0, 0x01

	.text
ENTRY(mg_abi_call)
	/* The CFI follows the saves, so that a debugger stopped in the
	 * callee unwinds through here to the C caller. */
	sub	sp, sp, #FRAME_SIZE
	.cfi_def_cfa_offset FRAME_SIZE
	stp	x19, x20, [sp, #SAVE_X19]
	stp	x21, x22, [sp, #SAVE_X19 + 16]
	stp	x23, x24, [sp, #SAVE_X19 + 32]
	stp	x25, x26, [sp, #SAVE_X19 + 48]
	stp	x27, x28, [sp, #SAVE_X19 + 64]
	.cfi_rel_offset x19, SAVE_X19
	.cfi_rel_offset x20, SAVE_X19 + 8
	.cfi_rel_offset x21, SAVE_X19 + 16
	.cfi_rel_offset x22, SAVE_X19 + 24
	.cfi_rel_offset x23, SAVE_X19 + 32
	.cfi_rel_offset x24, SAVE_X19 + 40
	.cfi_rel_offset x25, SAVE_X19 + 48
	.cfi_rel_offset x26, SAVE_X19 + 56
	.cfi_rel_offset x27, SAVE_X19 + 64
	.cfi_rel_offset x28, SAVE_X19 + 72
	stp	x29, x30, [sp, #SAVE_X29]
	.cfi_rel_offset x29, SAVE_X29
	.cfi_rel_offset x30, SAVE_X29 + 8
	add	x29, sp, #SAVE_X29	/* a frame record, for debuggers */
	str	x18, [sp, #SAVE_X18]
	stp	d8, d9, [sp, #SAVE_D8]
	stp	d10, d11, [sp, #SAVE_D8 + 16]
	stp	d12, d13, [sp, #SAVE_D8 + 32]
	stp	d14, d15, [sp, #SAVE_D8 + 48]

	adrp	x9, current_record
	str	x4, [x9, :lo12:current_record]
	/* The callee's sp is the case's alignment (A11 in docs/contract.md):
	 * aligned down to 64, then raised by the record's stack_offset,
	 * whatever our caller's frame; the return restores our sp from the
	 * record. */
	mov	x9, sp
	str	x9, [x4, #MG_ABI_SP_CALLER]
	sub	x10, x9, #(CALL_FRAME + 64)
	and	x10, x10, #-64
	ldr	w11, [x4, #MG_ABI_STACK_OFFSET]
	add	x10, x10, x11
	str	x9, [x10, #CALLER_SP_SLOT]
	mov	sp, x10
	CFA_FROM_SLOT
	str	x10, [x4, #MG_ABI_SP_BEFORE]
	/* The floating-point state at entry is the case's (A7, C17): FPSR's
	 * flags as it says, FPCR the caller's with the case's rounding mode
	 * and FZ. The caller's FPCR is not read here: it is constant, and the
	 * record arrives with it (writing FPCR can stall: only if it differs). */
	ldr	x11, [x4, #MG_ABI_FPSR_ENTRY]
	msr	fpsr, x11
	ldr	x11, [x4, #MG_ABI_FPCR_BEFORE]
	ldr	x12, [x4, #MG_ABI_FPCR_CALLER]
	cmp	x11, x12
	b.eq	4f
	msr	fpcr, x11
4:	adrp	x10, canaries
	add	x10, x10, :lo12:canaries
	ldp	x11, x12, [x10, #TABLE_FRAME]
	stp	x11, x12, [sp, #FRAME_CANARIES]

	mov	x16, x0			/* fn; x16 is free across a call */
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	ldp	q8, q9, [x10, #TABLE_V8]
	ldp	q10, q11, [x10, #TABLE_V8 + 32]
	ldp	q12, q13, [x10, #TABLE_V8 + 64]
	ldp	q14, q15, [x10, #TABLE_V8 + 96]
	ldr	w11, [x4, #MG_ABI_CHECK_FPU]
	cbz	w11, 2f
	adrp	x12, fpu_poison
	add	x12, x12, :lo12:fpu_poison
	ldp	q0, q1, [x12]
	mov	v2.16b, v0.16b
	mov	v3.16b, v0.16b
	mov	v4.16b, v0.16b
	mov	v5.16b, v0.16b
	mov	v6.16b, v0.16b
	mov	v7.16b, v0.16b
	mov	v16.16b, v0.16b
	mov	v17.16b, v0.16b
	mov	v18.16b, v0.16b
	mov	v19.16b, v0.16b
	mov	v20.16b, v0.16b
	mov	v21.16b, v0.16b
	mov	v22.16b, v0.16b
	mov	v23.16b, v0.16b
	mov	v24.16b, v0.16b
	mov	v25.16b, v0.16b
	mov	v26.16b, v0.16b
	mov	v27.16b, v0.16b
	mov	v28.16b, v0.16b
	mov	v29.16b, v0.16b
	mov	v30.16b, v0.16b
	mov	v31.16b, v0.16b
	mov	v1.16b, v0.16b
	mrs	x11, fpsr
	str	x11, [x4, #MG_ABI_FPSR_BEFORE]
2:	ldp	x18, x19, [x10, #TABLE_X18]
	ldp	x20, x21, [x10, #TABLE_X18 + 16]
	ldp	x22, x23, [x10, #TABLE_X18 + 32]
	ldp	x24, x25, [x10, #TABLE_X18 + 48]
	ldp	x26, x27, [x10, #TABLE_X18 + 64]
	ldp	x28, x29, [x10, #TABLE_X18 + 80]
	ldr	w11, [x4, #MG_ABI_SET_FLAGS]
	msr	nzcv, x11		/* all clear, or all set on a sample of calls */
	blr	x16

	adrp	x9, current_record
	ldr	x9, [x9, :lo12:current_record]
	mov	x10, sp
	str	x10, [x9, #MG_ABI_SP_AFTER]
	ldr	x10, [x9, #MG_ABI_SP_BEFORE]
	mov	sp, x10
	stp	x19, x20, [x9, #MG_ABI_SAVED]
	stp	x21, x22, [x9, #MG_ABI_SAVED + 16]
	stp	x23, x24, [x9, #MG_ABI_SAVED + 32]
	stp	x25, x26, [x9, #MG_ABI_SAVED + 48]
	stp	x27, x28, [x9, #MG_ABI_SAVED + 64]
	str	x29, [x9, #MG_ABI_SAVED + 80]
	stp	d8, d9, [x9, #MG_ABI_VSAVED]
	stp	d10, d11, [x9, #MG_ABI_VSAVED + 16]
	stp	d12, d13, [x9, #MG_ABI_VSAVED + 32]
	stp	d14, d15, [x9, #MG_ABI_VSAVED + 48]
	str	x18, [x9, #MG_ABI_X18]
	ldp	x10, x11, [sp, #FRAME_CANARIES]
	stp	x10, x11, [x9, #MG_ABI_FRAME]
	ldr	w10, [x9, #MG_ABI_CHECK_FPU]
	cbz	w10, 3f
	add	x10, x9, #MG_ABI_V_AFTER
	stp	q0, q1, [x10]
	stp	q2, q3, [x10, #32]
	stp	q4, q5, [x10, #64]
	stp	q6, q7, [x10, #96]
	stp	q8, q9, [x10, #128]
	stp	q10, q11, [x10, #160]
	stp	q12, q13, [x10, #192]
	stp	q14, q15, [x10, #224]
	stp	q16, q17, [x10, #256]
	stp	q18, q19, [x10, #288]
	stp	q20, q21, [x10, #320]
	stp	q22, q23, [x10, #352]
	stp	q24, q25, [x10, #384]
	stp	q26, q27, [x10, #416]
	stp	q28, q29, [x10, #448]
	stp	q30, q31, [x10, #480]
	mrs	x10, fpsr
	str	x10, [x9, #MG_ABI_FPSR_AFTER]
3:
	/* Where the CPU has SME, SVCR says whether the call left streaming
	 * mode (PSTATE.SM) or ZA (PSTATE.ZA) on, which a non-streaming
	 * function with a private ZA interface may not (AAPCS64 6.2; it was
	 * called with both off). Last, after every register is recorded:
	 * smstop, which puts our caller back, zeroes the vector registers. */
	ldr	w10, [x9, #MG_ABI_CHECK_SME]
	cbz	w10, 5f
	mrs	x10, s3_3_c4_c2_2	/* SVCR */
	str	x10, [x9, #MG_ABI_SVCR_AFTER]
	cbz	x10, 5f
	.inst	0xd503467f		/* smstop */
5:
	/* Give the caller its own FPCR back if the call left another (writing
	 * FPCR can stall the pipeline; comparing is cheap). */
	mrs	x10, fpcr
	str	x10, [x9, #MG_ABI_FPCR_AFTER]
	ldr	x11, [x9, #MG_ABI_FPCR_CALLER]
	cmp	x10, x11
	b.eq	1f
	msr	fpcr, x11
1:	ldr	x10, [x9, #MG_ABI_SP_CALLER]
	mov	sp, x10
	.cfi_def_cfa sp, FRAME_SIZE
	ldp	d14, d15, [sp, #SAVE_D8 + 48]
	ldp	d12, d13, [sp, #SAVE_D8 + 32]
	ldp	d10, d11, [sp, #SAVE_D8 + 16]
	ldp	d8, d9, [sp, #SAVE_D8]
	ldr	x18, [sp, #SAVE_X18]
	ldp	x29, x30, [sp, #SAVE_X29]
	ldp	x27, x28, [sp, #SAVE_X19 + 64]
	ldp	x25, x26, [sp, #SAVE_X19 + 48]
	ldp	x23, x24, [sp, #SAVE_X19 + 32]
	ldp	x21, x22, [sp, #SAVE_X19 + 16]
	ldp	x19, x20, [sp, #SAVE_X19]
	add	sp, sp, #FRAME_SIZE
	.cfi_def_cfa_offset 0
	.cfi_same_value x19
	.cfi_same_value x20
	.cfi_same_value x21
	.cfi_same_value x22
	.cfi_same_value x23
	.cfi_same_value x24
	.cfi_same_value x25
	.cfi_same_value x26
	.cfi_same_value x27
	.cfi_same_value x28
	.cfi_same_value x29
	.cfi_same_value x30
	ret
END(mg_abi_call)
