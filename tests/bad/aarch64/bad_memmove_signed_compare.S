/* Chooses the direction by dst - src < n, as a memmove should, but with a
 * signed compare (b.lt where b.lo belongs). When dst is below src the
 * difference is negative, so it copies backward, and when the buffers
 * overlap that overwrites source bytes before they are read. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memmove_signed_compare)
	sub	x3, x0, x1
	cmp	x3, x2
	b.lt	2f			/* the bug: b.lo is the unsigned test */
	mov	x3, #0			/* forward, a byte at a time */
1:	cmp	x3, x2
	b.eq	3f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	cbz	x2, 3f			/* backward, from the last byte */
	sub	x2, x2, #1
	ldrb	w4, [x1, x2]
	strb	w4, [x0, x2]
	b	2b
3:	ret
END(mg_aarch64_bad_memmove_signed_compare)
