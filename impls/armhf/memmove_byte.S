/* memmove_byte: one byte at a time, forward iff dst - src >= n as an
 * unsigned difference (dst below src, or past its end), else from the end
 * (dst above src and overlapping it). The compare is unsigned (bhs): a
 * signed one (bge) would copy dst-below-src overlaps backward, overwriting
 * source bytes before it reads them. */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_memmove_byte)
	mov	r3, r0			/* r0 is the return value */
	cmp	r2, #0
	beq	L(done)
	sub	r12, r0, r1
	cmp	r12, r2
	bhs	L(forward)		/* unsigned: dst - src >= n */
	add	r3, r0, r2		/* backward: from both ends */
	add	r1, r1, r2
L(backward):
	ldrb	r12, [r1, #-1]!
	strb	r12, [r3, #-1]!
	subs	r2, r2, #1
	bne	L(backward)
	bx	lr
L(forward):
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	bne	L(forward)
L(done):
	bx	lr
END(mg_armhf_memmove_byte)
