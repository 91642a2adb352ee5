/* memcpy_neon: 16-byte blocks through q0 (vld1.8/vst1.8 {d0-d1} with no
 * alignment qualifier: the element-size-1 forms, which are right at any
 * address while SCTLR.A is clear, as on Linux), then the last bytes with
 * ldrb/strb. q0 (d0-d1) is caller-saved (AAPCS 5.1.2.1: only s16-s31,
 * d8-d15, must be preserved), so nothing is saved. Needs Advanced SIMD
 * (NEON). */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
	.fpu	neon
ENTRY(mg_armhf_memcpy_neon)
	mov	r3, r0			/* r0 is the return value */
L(block):
	cmp	r2, #16
	blo	L(bytes)
	vld1.8	{d0-d1}, [r1]!
	vst1.8	{d0-d1}, [r3]!
	sub	r2, r2, #16
	b	L(block)
L(bytes):
	cmp	r2, #0
	beq	L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	L(bytes)
L(done):
	bx	lr
END(mg_armhf_memcpy_neon)
