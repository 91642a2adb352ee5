/* 8-byte words, then a 4-, 2- and 1-byte tail, where the last byte is
 * stored with strh instead of strb: an odd length writes one byte (a zero)
 * past the end of dst. Every load stays inside src. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_tail_off_by_one)
	mov	x3, x0
1:	cmp	x2, #8
	b.lo	2f
	ldr	x4, [x1], #8
	str	x4, [x3], #8
	sub	x2, x2, #8
	b	1b
2:	tbz	x2, #2, 3f
	ldr	w4, [x1], #4
	str	w4, [x3], #4
3:	tbz	x2, #1, 4f
	ldrh	w4, [x1], #2
	strh	w4, [x3], #2
4:	tbz	x2, #0, 5f
	ldrb	w4, [x1]
	strh	w4, [x3]		/* the slip: two bytes, the second one zero */
5:	ret
END(mg_aarch64_bad_memcpy_tail_off_by_one)
