/* Copies 192-byte blocks through every caller-saved VFP/NEON register:
 * q0-q3 (d0-d7) and q8-q15 (d16-d31), then 16-byte blocks through q0, then
 * bytes, and leaves d7, d31 and ip all ones whatever n. AAPCS 5.1.2.1:
 * s0-s15 (d0-d7, q0-q3) and d16-d31 (q8-q15) need not be preserved; ip
 * (r12) is a temporary (5.1.1). Must pass. Needs NEON: vld1/vst1 and
 * d16-d31 (VFPD32). The loads and stores are the element-size-1 forms,
 * right at any address. */
#include "asmdefs.h"
	.text
	.arm
	.syntax unified
	.fpu	neon
ENTRY(mg_armhf_memcpy_clobbers_q0)
	mov	r3, r0			/* r0 is the return value */
1:	cmp	r2, #192
	blo	2f
	vld1.8	{d0-d3}, [r1]!
	vld1.8	{d4-d7}, [r1]!
	vld1.8	{d16-d19}, [r1]!
	vld1.8	{d20-d23}, [r1]!
	vld1.8	{d24-d27}, [r1]!
	vld1.8	{d28-d31}, [r1]!
	vst1.8	{d0-d3}, [r3]!
	vst1.8	{d4-d7}, [r3]!
	vst1.8	{d16-d19}, [r3]!
	vst1.8	{d20-d23}, [r3]!
	vst1.8	{d24-d27}, [r3]!
	vst1.8	{d28-d31}, [r3]!
	sub	r2, r2, #192
	b	1b
2:	cmp	r2, #16
	blo	3f
	vld1.8	{d0-d1}, [r1]!
	vst1.8	{d0-d1}, [r3]!
	sub	r2, r2, #16
	b	2b
3:	cmp	r2, #0
	beq	4f
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	3b
4:	vmov.i8	d7, #0xff
	vmov.i8	d31, #0xff
	mvn	r12, #0
	bx	lr
END(mg_armhf_memcpy_clobbers_q0)
