/* memcpy_thumb's copy, returning with `mov pc, lr`: in Thumb state a move
 * to pc does not interwork (it stays in Thumb state, ARM ARM A2.3.1's
 * BranchWritePC), so an ARM caller, such as memgate's trampoline, is
 * resumed in the wrong state and runs its own instructions as Thumb code.
 * AAPCS 5.6: a routine returns with an interworking instruction (bx lr,
 * pop {..., pc}, ldr pc). Right in every byte. */
#include "asmdefs.h"

	.syntax unified
	.thumb
	.text
ENTRY(mg_armhf_bad_memcpy_thumb_mov_pc)
	mov	r3, r0
L(byte):
	cbz	r2, L(done)
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	b	L(byte)
L(done):
	mov	pc, lr			/* the bug: no interworking from Thumb */
END(mg_armhf_bad_memcpy_thumb_mov_pc)
