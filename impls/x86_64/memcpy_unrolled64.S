/* memcpy_unrolled64: VARIANTS.md #13, from the 2009 thread "performance
 * improvement for memcpy_64.S by fast string" (the unrolled-loop side).
 *
 * void *mg_x86_64_memcpy_unrolled64(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * 64-byte blocks of 8 quadword loads followed by 8 quadword stores, then
 * whole quadwords, then bytes.
 *
 * Register budget: return value (rax), two pointers, the remaining length
 * and 8 data registers are 12 registers, but only 9 are caller-saved. rdx
 * doubles as loop counter and remaining length (it is decremented by 64 per
 * block), and three callee-saved registers (rbx, r12, r13) join rcx and
 * r8-r11 as data registers; they are pushed on entry and popped on exit.
 *
 * n == 0 touches no memory (other than the pushes above).
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_unrolled64)
	movq	%rdi, %rax		/* return value */
	pushq	%rbx
	pushq	%r12
	pushq	%r13

	/* Blocks: rdx - 64 borrows (CF) exactly when fewer than 64 bytes
	 * are left, so the sub serves as the loop test. */
	subq	$64, %rdx
	jb	.Lmu_after_blocks
	.p2align 4
.Lmu_blocks:
	movq	0x00(%rsi), %rcx
	movq	0x08(%rsi), %r8
	movq	0x10(%rsi), %r9
	movq	0x18(%rsi), %r10
	movq	0x20(%rsi), %r11
	movq	0x28(%rsi), %rbx
	movq	0x30(%rsi), %r12
	movq	0x38(%rsi), %r13
	movq	%rcx, 0x00(%rdi)
	movq	%r8,  0x08(%rdi)
	movq	%r9,  0x10(%rdi)
	movq	%r10, 0x18(%rdi)
	movq	%r11, 0x20(%rdi)
	movq	%rbx, 0x28(%rdi)
	movq	%r12, 0x30(%rdi)
	movq	%r13, 0x38(%rdi)
	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	subq	$64, %rdx
	jae	.Lmu_blocks
.Lmu_after_blocks:
	addq	$64, %rdx		/* 0 <= rdx < 64: bytes left */

	/* Whole quadwords. */
	subq	$8, %rdx
	jb	.Lmu_after_quads
	.p2align 4
.Lmu_quads:
	movq	(%rsi), %rcx
	movq	%rcx, (%rdi)
	leaq	8(%rsi), %rsi
	leaq	8(%rdi), %rdi
	subq	$8, %rdx
	jae	.Lmu_quads
.Lmu_after_quads:
	addq	$8, %rdx		/* 0 <= rdx < 8 */
	jz	.Lmu_done

	/* Bytes. */
	.p2align 4
.Lmu_bytes:
	movzbl	(%rsi), %ecx
	movb	%cl, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rdx
	jnz	.Lmu_bytes
.Lmu_done:
	popq	%r13
	popq	%r12
	popq	%rbx
	ret
END(mg_x86_64_memcpy_unrolled64)
