/* Counts the 16-byte blocks of the length in floating point, as the nearest
 * integer to len / 16 - 15/32 (which is floor(len / 16) for every length),
 * with frinti: it rounds in FPCR's rounding mode, which the caller may have
 * set (AAPCS64 6.1.2: the rounding mode bits are changed by support
 * functions such as fesetround). Right in round-to-nearest, the default;
 * toward +inf it copies a block too many, toward -inf or zero one too few.
 * Its twin memcpy_frintn_blocks includes this file and rounds with frintn,
 * to nearest whatever FPCR says. */
#include "asmdefs.h"
#ifndef BLOCKS_COPY /* the twin defines its own */
#define BLOCKS_COPY mg_aarch64_bad_memcpy_frinti_blocks
#define ROUND	    frinti	/* BUG: FPCR's rounding mode, not necessarily nearest */
#endif
	.text
ENTRY(BLOCKS_COPY)
	mov	x3, x0
	ucvtf	d0, x2
	mov	x5, #0x3fb0000000000000	/* 1/16 */
	fmov	d1, x5
	fmul	d0, d0, d1
	fmov	d1, #0.46875		/* 15/32 */
	fsub	d0, d0, d1
	ROUND	d0, d0
	fcvtzu	x4, d0			/* the block count; len < 16 gives 0 */
	cbz	x4, L(tail)
L(block):
	ldr	q0, [x1], #16
	str	q0, [x3], #16
	subs	x4, x4, #1
	b.ne	L(block)
L(tail):
	tbz	x2, #3, 1f
	ldr	x5, [x1], #8
	str	x5, [x3], #8
1:	tbz	x2, #2, 2f
	ldr	w5, [x1], #4
	str	w5, [x3], #4
2:	tbz	x2, #1, 3f
	ldrh	w5, [x1], #2
	strh	w5, [x3], #2
3:	tbz	x2, #0, 4f
	ldrb	w5, [x1]
	strb	w5, [x3]
4:	ret
END(BLOCKS_COPY)
