/* Bounces each 64 bytes through a cache-line aligned block in its frame:
 * the block is sp rounded up to 64, and the frame has room for it only
 * where sp is 64-byte aligned at entry, as it was where it was written.
 * AAPCS64 (6.4.5.2) promises 16: with sp mod 64 = 16, 32 or 48 at entry the
 * block runs into the saved x19 and x20 above it, and the caller gets
 * them back clobbered with its bytes. Its twin memcpy_stack_block includes
 * this file with a frame sized for the rounding. (An aligned vector store of normal memory
 * never faults on AArch64, and sp itself is always 16-aligned: what a
 * routine can get wrong is what it computes from sp's low bits.) */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_aarch64_bad_memcpy_stack_block
/* BUG: room for the block only if sp is 64-aligned: no more below the saves */
#define FRAME 128
#define SAVES 64
#endif
	.text
ENTRY(STACK_COPY)
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x19, x20, [sp, #SAVES]
	.cfi_rel_offset x19, SAVES
	.cfi_rel_offset x20, SAVES + 8
	add	x9, sp, #63
	and	x9, x9, #-64		/* the block: sp rounded up to 64 */
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
	ldp	x19, x20, [sp, #SAVES]
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	.cfi_restore x19
	.cfi_restore x20
	ret
END(STACK_COPY)
