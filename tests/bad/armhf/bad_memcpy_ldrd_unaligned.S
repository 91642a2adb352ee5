/* Copies 8-byte blocks with ldrd/strd from wherever src and dst are, then
 * bytes. LDRD and STRD need a word-aligned address on every ARMv7 CPU,
 * whatever SCTLR.A says (ARM ARM A3.2.1): at any other address they take
 * an alignment fault, which Linux fixes up for user code in software, a
 * trap each, and qemu-user does not (SIGBUS). Its twin memcpy_ldr_unaligned
 * includes this file and moves the same blocks with two ldr and two str,
 * which ARMv7 performs at any address. */
#include "asmdefs.h"
#ifndef BLOCK_COPY /* the twin defines its own */
#define BLOCK_COPY mg_armhf_bad_memcpy_ldrd_unaligned
#endif
	.text
	.arm
	.syntax unified
ENTRY(BLOCK_COPY)
	push	{r4, r5}
	mov	r12, r0			/* r0 is the return value */
1:	cmp	r2, #8
	blo	2f
#ifdef WORD_LOADS
	ldr	r4, [r1], #4
	ldr	r5, [r1], #4
	str	r4, [r12], #4
	str	r5, [r12], #4
#else
	ldrd	r4, r5, [r1], #8	/* BUG: src and dst need not be word-aligned */
	strd	r4, r5, [r12], #8
#endif
	sub	r2, r2, #8
	b	1b
2:	cmp	r2, #0
	beq	3f
	ldrb	r3, [r1], #1
	strb	r3, [r12], #1
	sub	r2, r2, #1
	b	2b
3:	pop	{r4, r5}
	bx	lr
END(BLOCK_COPY)
