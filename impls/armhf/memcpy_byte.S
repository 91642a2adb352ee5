/* memcpy_byte: the plainest 32-bit Arm copy, one ldrb/strb pair per byte,
 * in ARM (A32) state. r0 = dst, r1 = src, r2 = n; returns dst in r0. */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_memcpy_byte)
	mov	r3, r0			/* r0 is the return value */
	cmp	r2, #0
	beq	L(done)
L(loop):
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	bne	L(loop)
L(done):
	bx	lr
END(mg_armhf_memcpy_byte)
