/* Spills a register to [sp] without first making room: the word at the
 * incoming sp belongs to the caller's frame. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_writes_above_sp)
	str	x0, [sp]		/* the slip: should be below sp */
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ldr	x0, [sp]
	ret
END(mg_aarch64_bad_memcpy_writes_above_sp)
