/* A byte copy that counts in r4 without saving it: the copy is right, the
 * caller's r4 is gone (it returns holding n). AAPCS 5.1.1: a subroutine
 * must preserve r4-r8, r10, r11 and SP (r9 too where the platform makes it
 * v6). */
#include "asmdefs.h"
	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_bad_memcpy_clobbers_r4)
	mov	r4, #0			/* the bug: r4 is callee-saved */
1:	cmp	r4, r2
	beq	2f
	ldrb	r3, [r1, r4]
	strb	r3, [r0, r4]
	add	r4, r4, #1
	b	1b
2:	bx	lr
END(mg_armhf_bad_memcpy_clobbers_r4)
