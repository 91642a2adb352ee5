/* Bounces each 64 bytes through a cache-line aligned block in its frame:
 * the block is sp rounded up to 64, and the frame has room for it only
 * where sp is 64-byte aligned at entry. The psABI promises 16: with
 * sp mod 64 = 16, 32 or 48 at entry the block runs into the saved s0 and
 * s1 above it, and the caller gets them back clobbered with its bytes.
 * Its twin memcpy_stack_block includes this file with a frame sized for
 * the rounding. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_riscv64_bad_memcpy_stack_block
/* BUG: room for the block only if sp is 64-aligned: no more below the saves */
#define FRAME 128
#define SAVES 64
#endif
	.text
ENTRY(STACK_COPY)
	addi	sp, sp, -FRAME
	.cfi_def_cfa_offset FRAME
	sd	s0, SAVES(sp)
	sd	s1, SAVES + 8(sp)
	.cfi_rel_offset s0, SAVES
	.cfi_rel_offset s1, SAVES + 8
	addi	t3, sp, 63
	andi	t3, t3, -64		/* the block: sp rounded up to 64 */
	mv	s0, a0
	li	t4, 64
L(block):
	bltu	a2, t4, L(tail)
	li	s1, 0
L(in):	add	t5, a1, s1		/* 8 words into the block */
	ld	t6, 0(t5)
	add	t5, t3, s1
	sd	t6, 0(t5)
	addi	s1, s1, 8
	bne	s1, t4, L(in)
	li	s1, 0
L(out):	add	t5, t3, s1		/* and out to dst */
	ld	t6, 0(t5)
	add	t5, s0, s1
	sd	t6, 0(t5)
	addi	s1, s1, 8
	bne	s1, t4, L(out)
	addi	a1, a1, 64
	addi	s0, s0, 64
	addi	a2, a2, -64
	j	L(block)
L(tail):
	beqz	a2, L(done)
	lbu	t6, 0(a1)
	sb	t6, 0(s0)
	addi	a1, a1, 1
	addi	s0, s0, 1
	addi	a2, a2, -1
	j	L(tail)
L(done):
	ld	s0, SAVES(sp)
	ld	s1, SAVES + 8(sp)
	addi	sp, sp, FRAME
	.cfi_def_cfa_offset 0
	.cfi_restore s0
	.cfi_restore s1
	ret
END(STACK_COPY)
