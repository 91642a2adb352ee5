/* Copies 8-byte blocks through d8 (as its halves s16 and s17: ldr, vmov
 * into the VFP register, vmov back, str), then the last bytes, without
 * saving d8. AAPCS 5.1.2.1: s16-s31 (d8-d15, q4-q7) must be preserved
 * across calls. Core-register ldr/str and vmov rather than vldr/vstr,
 * which fault on an address that is not word-aligned, or vld1.8, which
 * needs NEON: VFPv3-D16, armhf's baseline, is enough. Its twin
 * memcpy_saves_d8 includes this file and wraps the same code in
 * vpush {d8} / vpop {d8}. */
#include "asmdefs.h"
#ifndef D8_COPY /* the twin defines its own */
#define D8_COPY mg_armhf_bad_memcpy_clobbers_d8
#define SAVE_D8			/* the bug: d8 is callee-saved */
#define RESTORE_D8
#endif
	.text
	.arm
	.syntax unified
ENTRY(D8_COPY)
	SAVE_D8
	mov	r3, r0			/* r0 is the return value */
1:	cmp	r2, #8
	blo	2f
	ldr	r12, [r1], #4
	vmov	s16, r12
	ldr	r12, [r1], #4
	vmov	s17, r12
	vmov	r12, s16
	str	r12, [r3], #4
	vmov	r12, s17
	str	r12, [r3], #4
	sub	r2, r2, #8
	b	1b
2:	cmp	r2, #0
	beq	3f
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	2b
3:	RESTORE_D8
	bx	lr
END(D8_COPY)
