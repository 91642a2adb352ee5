/* memcpy_thumb: a Thumb-2 byte copy (ldrb/strb with post-increment, cbz),
 * entered by blx in Thumb state (its symbol has bit 0 set) and returning
 * with bx lr, which goes back to its caller's state whichever that is
 * (AAPCS 5.6, interworking). */
#include "asmdefs.h"

	.syntax unified
	.thumb
	.text
ENTRY(mg_armhf_memcpy_thumb)
	mov	r3, r0
L(byte):
	cbz	r2, L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	b	L(byte)
L(done):
	bx	lr
END(mg_armhf_memcpy_thumb)
