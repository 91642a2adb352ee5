/* The twin of bad_memcpy_stack_block: the same block, sp rounded up to
 * 64, in a frame with 64 bytes more for the rounding, so the saved x19
 * and x20 lie above it at every alignment AAPCS64 allows at entry (must
 * pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_memcpy_stack_block)
	sub	sp, sp, #192
	.cfi_def_cfa_offset 192
	stp	x19, x20, [sp, #128]
	.cfi_rel_offset x19, 128
	.cfi_rel_offset x20, 128 + 8
	add	x9, sp, #63
	and	x9, x9, #-64		/* within the 128 bytes below the saves */
	mov	x19, #0
L(block):
	add	x20, x19, #64
	cmp	x20, x2
	b.hi	L(tail)
	add	x10, x1, x19
	ldp	q0, q1, [x10]
	ldp	q2, q3, [x10, #32]
	stp	q0, q1, [x9]
	stp	q2, q3, [x9, #32]
	ldp	q0, q1, [x9]
	ldp	q2, q3, [x9, #32]
	add	x10, x0, x19
	stp	q0, q1, [x10]
	stp	q2, q3, [x10, #32]
	mov	x19, x20
	b	L(block)
L(tail):
	cmp	x19, x2
	b.eq	L(done)
	ldrb	w10, [x1, x19]
	strb	w10, [x0, x19]
	add	x19, x19, #1
	b	L(tail)
L(done):
	ldp	x19, x20, [sp, #128]
	add	sp, sp, #192
	.cfi_def_cfa_offset 0
	.cfi_restore x19
	.cfi_restore x20
	ret
END(mg_aarch64_memcpy_stack_block)
