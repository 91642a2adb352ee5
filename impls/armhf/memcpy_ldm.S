/* memcpy_ldm: bytes up to dst's 4-byte boundary; then, where src is 4-byte
 * aligned too, 32-byte blocks with ldmia/stmia of eight registers, then
 * words, then the last bytes; where it is not, bytes only. Every word
 * access is naturally aligned (ldm/stm must be: they fault on an unaligned
 * address whatever SCTLR.A says). The block registers r4-r10 are
 * callee-saved (AAPCS 5.1.1): pushed before the block loop and popped after
 * it; r12 (ip) is the eighth, a temporary. */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_memcpy_ldm)
	mov	r3, r0			/* r0 is the return value */
L(head):
	tst	r3, #3
	beq	L(aligned)
	cmp	r2, #0
	beq	L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	L(head)
L(aligned):
	tst	r1, #3
	bne	L(bytes)		/* src not aligned with dst: bytes only */
	cmp	r2, #32
	blo	L(words)
	push	{r4-r10}
	.cfi_adjust_cfa_offset 28
	.cfi_rel_offset r4, 0
	.cfi_rel_offset r5, 4
	.cfi_rel_offset r6, 8
	.cfi_rel_offset r7, 12
	.cfi_rel_offset r8, 16
	.cfi_rel_offset r9, 20
	.cfi_rel_offset r10, 24
L(block):
	ldmia	r1!, {r4-r10, r12}
	stmia	r3!, {r4-r10, r12}
	sub	r2, r2, #32
	cmp	r2, #32
	bhs	L(block)
	pop	{r4-r10}
	.cfi_adjust_cfa_offset -28
	.cfi_restore r4
	.cfi_restore r5
	.cfi_restore r6
	.cfi_restore r7
	.cfi_restore r8
	.cfi_restore r9
	.cfi_restore r10
L(words):
	cmp	r2, #4
	blo	L(bytes)
	ldr	r12, [r1], #4
	str	r12, [r3], #4
	sub	r2, r2, #4
	b	L(words)
L(bytes):
	cmp	r2, #0
	beq	L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	L(bytes)
L(done):
	bx	lr
END(mg_armhf_memcpy_ldm)
