/* Spills dst to [sp] without first making room: the word at the incoming
 * sp belongs to the caller's frame (memcpy's three arguments all come in
 * r0-r2, AAPCS 5.5, so nothing at or above sp is the callee's; it may
 * store only below its incoming sp, after moving sp down, 5.2.1.1). The
 * copy is right and sp comes back unchanged. */
#include "asmdefs.h"
	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_bad_memcpy_writes_above_sp)
	str	r0, [sp]		/* the slip: should be below sp */
	mov	r3, r0
	cmp	r2, #0
	beq	2f
1:	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	bne	1b
2:	ldr	r0, [sp]
	bx	lr
END(mg_armhf_bad_memcpy_writes_above_sp)
