/* Picks its direction from dst - src, all 64 bits, unsigned: backward when
 * dst lies less than n bytes above src. It clears the top byte of its copy
 * of src first (as code that computes a page offset from it might), but
 * not of dst: with tagged pointers (the top byte is ignored, and a caller
 * may set it: AAPCS64 6.4.1) dst - src is then 2^56 times the tag away,
 * and it copies forward over a source it has not read yet. Its twin
 * memmove_untags_both includes this file and clears both. The copy goes
 * through the pointers as given, tags and all. */
#include "asmdefs.h"
#ifndef TAG_MOVE /* the twin defines its own */
#define TAG_MOVE mg_aarch64_bad_memmove_untags_src
#endif
	.text
ENTRY(TAG_MOVE)
	and	x6, x1, #0x00ffffffffffffff
#ifdef UNTAG_BOTH
	and	x5, x0, #0x00ffffffffffffff
#else
	mov	x5, x0			/* BUG: dst keeps its tag */
#endif
	sub	x5, x5, x6
	cmp	x5, x2
	b.lo	L(backward)
	mov	x3, #0
L(forward):
	cmp	x3, x2
	b.hs	L(done)
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	L(forward)
L(backward):
	cbz	x2, L(done)
	sub	x2, x2, #1
	ldrb	w4, [x1, x2]
	strb	w4, [x0, x2]
	b	L(backward)
L(done):
	ret
END(TAG_MOVE)
