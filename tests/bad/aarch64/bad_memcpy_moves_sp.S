/* Pushes a frame record with stp ..., [sp, #-16]! and pops it with
 * ldp ..., [sp], #32: the caller gets its stack pointer 16 bytes too high. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_moves_sp)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ldp	x29, x30, [sp], #32	/* the slip: 32 for 16 */
	ret
END(mg_aarch64_bad_memcpy_moves_sp)
