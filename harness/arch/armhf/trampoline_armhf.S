/* The 32-bit Arm (AAPCS, hard float) ABI trampoline, in ARM state.
 *
 * uint32_t mg_abi_call(const void *fn, uint32_t a0, uint32_t a1, uint32_t a2,
 *			struct mg_abi_record *rec)
 *	r0 = fn, r1-r3 = the arguments, rec the fifth argument, on the stack.
 *
 * Saves the caller's r4-r11, lr and d8-d15, loads a canary into each of
 * r4-r11 and d8-d15, moves sp to the case's alignment (the record's
 * stack_offset), puts two canary words at the callee's incoming sp (the
 * callee owns only what lies below it), and calls fn(a0, a1, a2) with
 * blx, which enters a Thumb routine (bit 0 of its address set) in Thumb
 * state, and comes back here in ARM state only if the routine returns as
 * AAPCS requires (bx lr, pop {pc}). FPSCR at entry is the record's
 * fpscr_before. Afterwards it records r4-r11, d8-d15, the stack pointer,
 * the two words and FPSCR. It trusts nothing the callee may have broken:
 * the record is found again through a global, the stack pointer comes
 * back from the record, and the caller's FPSCR is put back. */
#include "abi.h"
#include "asmdefs.h"

	.syntax unified
	.arm
	.fpu	vfpv3-d16

/* Our frame: r4-r11, ip (for 8-byte alignment) and lr, then d8-d15. */
#define SAVED_BYTES	(10 * 4 + 8 * 8)
/* The callee's frame: the two canary words at its incoming sp. */
#define CALL_FRAME	16

	.section .rodata
	.p2align 3
canaries:
	.word	MG_ABI_CANARY_R4, MG_ABI_CANARY_R5, MG_ABI_CANARY_R6, MG_ABI_CANARY_R7
	.word	MG_ABI_CANARY_R8, MG_ABI_CANARY_R9, MG_ABI_CANARY_R10, MG_ABI_CANARY_R11
	.quad	MG_ABI_CANARY_D8, MG_ABI_CANARY_D9, MG_ABI_CANARY_D10, MG_ABI_CANARY_D11
	.quad	MG_ABI_CANARY_D12, MG_ABI_CANARY_D13, MG_ABI_CANARY_D14, MG_ABI_CANARY_D15

	.bss
	.p2align 2
current_record:
	.word	0

	.text
ENTRY(mg_abi_call)
	push	{r4-r11, ip, lr}
	.cfi_adjust_cfa_offset 40
	.cfi_rel_offset r4, 0
	.cfi_rel_offset r5, 4
	.cfi_rel_offset r6, 8
	.cfi_rel_offset r7, 12
	.cfi_rel_offset r8, 16
	.cfi_rel_offset r9, 20
	.cfi_rel_offset r10, 24
	.cfi_rel_offset r11, 28
	.cfi_rel_offset lr, 36
	vpush	{d8-d15}
	.cfi_adjust_cfa_offset 64
	ldr	r12, [sp, #SAVED_BYTES]	/* rec */
	ldr	r4, L(record_at)
0:	add	r4, pc, r4		/* pc reads as 0b + 8 */
	str	r12, [r4]
	/* The callee's sp is the case's alignment (docs/contract.md, H5):
	 * aligned down to 64, then raised by the record's stack_offset,
	 * whatever our caller's frame; the return restores our sp from the
	 * record. */
	mov	r5, sp
	str	r5, [r12, #MG_ABI_SP_CALLER]
	sub	r6, r5, #(CALL_FRAME + 64)
	bic	r6, r6, #63
	ldr	r7, [r12, #MG_ABI_STACK_OFFSET]
	add	r6, r6, r7
	str	r6, [r12, #MG_ABI_SP_BEFORE]
	ldr	r8, =MG_ABI_CANARY_FRAME0
	ldr	r9, =MG_ABI_CANARY_FRAME1
	strd	r8, r9, [r6]
	/* FPSCR at entry: the caller's, as the record has it. */
	ldr	r7, [r12, #MG_ABI_FPSCR_BEFORE]
	vmsr	fpscr, r7

	mov	ip, r0			/* fn */
	mov	r0, r1
	mov	r1, r2
	mov	r2, r3
	ldr	r3, L(canaries_at)
1:	add	r3, pc, r3		/* pc reads as 1b + 8 */
	/* The CFI describes the saves: from here to the return, sp is the
	 * realigned one, which no fixed offset leads back from (a debugger
	 * stopped in the callee unwinds to here, not past). */
	mov	sp, r6
	ldm	r3!, {r4-r11}
	vldmia	r3, {d8-d15}
	b	3f
	/* Where a routine that returns to us in Thumb state lands (AAPCS
	 * 5.6: a return must interwork, and Thumb's mov pc, lr does not):
	 * the instruction after the call is, read as Thumb, a branch back to
	 * here, a permanently undefined instruction, so that the SIGILL's pc
	 * names it (fault.c). Never reached in ARM state. */
	.globl	mg_abi_thumb_return
mg_abi_thumb_return:
	.short	0xde5d			/* Thumb udf #0x5d */
	.short	0
3:	blx	ip
	/* In ARM state: mov lr, #0x7fa (lr is restored from our frame
	 * below). Read as Thumb, its first halfword 0xe7fa: b to its own
	 * address + 4 - 12, which is mg_abi_thumb_return, 8 bytes before it
	 * (the udf, then the blx). */
	.inst	0xe3a0e7fa

	/* r0 is the result: keep it. */
	ldr	r12, L(record_again)
2:	add	r12, pc, r12		/* pc reads as 2b + 8 */
	ldr	r12, [r12]
	stm	r12, {r4-r11}
	add	r1, r12, #MG_ABI_VSAVED
	vstmia	r1, {d8-d15}
	str	sp, [r12, #MG_ABI_SP_AFTER]
	ldr	r1, [r12, #MG_ABI_SP_BEFORE]
	ldrd	r2, r3, [r1]
	add	r1, r12, #MG_ABI_FRAME
	strd	r2, r3, [r1]
	vmrs	r2, fpscr
	str	r2, [r12, #MG_ABI_FPSCR_AFTER]
	ldr	r2, [r12, #MG_ABI_FPSCR_CALLER]
	vmsr	fpscr, r2
	ldr	sp, [r12, #MG_ABI_SP_CALLER]
	vpop	{d8-d15}
	.cfi_adjust_cfa_offset -64
	pop	{r4-r11, ip, lr}
	.cfi_adjust_cfa_offset -40
	bx	lr

	.p2align 2
L(record_at):
	.word	current_record - (0b + 8)
L(canaries_at):
	.word	canaries - (1b + 8)
L(record_again):
	.word	current_record - (2b + 8)
	.ltorg
END(mg_abi_call)
