/* Copies 4-byte words through s0, and spots zero words with an FP compare
 * (fcmp s0, #0.0), writing those as their sign bit alone: with FPCR.FZ
 * clear only +0 and -0 compare equal to zero, so the copy is exact. FZ
 * (flush to zero) is the caller's to set (AAPCS64 6.1.2, through a support
 * function): then every denormal word, one random word in 256, compares
 * equal too, and is written as a zero. Its twin memcpy_fz_own_fpcr
 * includes this file and clears FZ around the loop. */
#include "asmdefs.h"
#ifndef FZ_COPY /* the twin defines its own */
#define FZ_COPY mg_aarch64_bad_memcpy_fz_zero_words
#endif
#define FPCR_FZ (1 << 24)
	.text
ENTRY(FZ_COPY)
#ifdef OWN_FPCR
	mrs	x7, fpcr		/* the caller's, given back at the end */
	bic	x6, x7, #FPCR_FZ
	msr	fpcr, x6
#endif
	mov	x3, x0
	cmp	x2, #4
	b.lo	L(bytes)
L(word):
	ldr	s0, [x1], #4
	fcmp	s0, #0.0		/* BUG without OWN_FPCR: denormals too under FZ */
	b.ne	1f
	fmov	w5, s0
	and	w5, w5, #0x80000000	/* +0 or -0 */
	str	w5, [x3], #4
	b	2f
1:	str	s0, [x3], #4
2:	sub	x2, x2, #4
	cmp	x2, #4
	b.hs	L(word)
L(bytes):
	cbz	x2, L(done)
	ldrb	w5, [x1], #1
	strb	w5, [x3], #1
	sub	x2, x2, #1
	b	L(bytes)
L(done):
#ifdef OWN_FPCR
	msr	fpcr, x7
#endif
	ret
END(FZ_COPY)
