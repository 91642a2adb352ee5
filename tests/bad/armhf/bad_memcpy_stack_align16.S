/* Copies 16-byte blocks through a stack slot with vst1.64/vld1.64 and a
 * 128-bit alignment hint ([sp :128]), which takes an alignment fault at
 * an address that is not a multiple of 16. The slot is 32 bytes below
 * the incoming sp: 16-byte aligned only where the caller's sp was, and
 * AAPCS promises 8 at a public interface (5.2.1.2). Its twin
 * memcpy_stack_align16 includes this file and aligns its own sp first.
 * Needs NEON. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_armhf_bad_memcpy_stack_align16
#endif
	.text
	.arm
	.syntax unified
	.fpu	neon
ENTRY(STACK_COPY)
	push	{r4, lr}
	sub	sp, sp, #24		/* BUG without ALIGN_OWN: 16-aligned only if the caller's sp was */
	mov	r4, sp
#ifdef ALIGN_OWN
	bic	r12, r4, #15		/* sp's own alignment, as AAPCS lets a routine choose */
	mov	sp, r12
#endif
	mov	r3, r0			/* r0 is the return value */
1:	cmp	r2, #16
	blo	2f
	vld1.8	{d0-d1}, [r1]!
	vst1.64	{d0-d1}, [sp :128]
	vld1.64	{d0-d1}, [sp :128]
	vst1.8	{d0-d1}, [r3]!
	sub	r2, r2, #16
	b	1b
2:	cmp	r2, #0
	beq	3f
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	2b
3:	mov	sp, r4
	add	sp, sp, #24
	pop	{r4, pc}
END(STACK_COPY)
