/* memcpy_thumb: a Thumb-2 byte copy (ldrb/strb with post-increment, cbz),
 * entered by blx in Thumb state (its symbol has bit 0 set) and returning
 * with bx lr, which goes back to its caller's state whichever that is
 * (AAPCS 5.6, interworking). tests/bad/armhf/bad_memcpy_thumb_mov_pc.S is
 * the same copy with another return (THUMB_RETURN). */
#include "asmdefs.h"

#ifndef THUMB_COPY
#define THUMB_COPY   mg_armhf_memcpy_thumb
#define THUMB_RETURN bx lr
#endif

	.syntax unified
	.thumb
	.text
ENTRY(THUMB_COPY)
	mov	r3, r0
L(byte):
	cbz	r2, L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	b	L(byte)
L(done):
	THUMB_RETURN
END(THUMB_COPY)
