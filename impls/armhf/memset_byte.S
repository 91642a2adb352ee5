/* memset_byte: one strb per byte (strb stores the low 8 bits of c, an int
 * in r1). r0 = dst, r1 = c, r2 = n; returns dst in r0. */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_memset_byte)
	mov	r3, r0			/* r0 is the return value */
	cmp	r2, #0
	beq	L(done)
L(loop):
	strb	r1, [r3], #1
	subs	r2, r2, #1
	bne	L(loop)
L(done):
	bx	lr
END(mg_armhf_memset_byte)
