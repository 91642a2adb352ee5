/* Makes an 8-byte frame to spill dst (sub sp, sp, #8), copies bytes, takes
 * dst back and returns without freeing the frame: the caller gets its stack
 * pointer 8 bytes too low. AAPCS 5.1.1: SP must be preserved. */
#include "asmdefs.h"
	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_bad_memcpy_moves_sp)
	sub	sp, sp, #8
	.cfi_adjust_cfa_offset 8
	str	r0, [sp]
	mov	r3, r0
	cmp	r2, #0
	beq	2f
1:	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	bne	1b
2:	ldr	r0, [sp]
	bx	lr			/* the slip: no add sp, sp, #8 */
END(mg_armhf_bad_memcpy_moves_sp)
