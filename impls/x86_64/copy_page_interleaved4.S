/* copy_page_interleaved4: VARIANTS.md #2, the proposal of the 2012 thread
 * "Optimize copy_page by re-arranging instruction sequence".
 *
 * void mg_x86_64_copy_page_interleaved4(void *to, void *from)
 *	rdi = to, rsi = from; both page aligned, 4096 bytes.
 *
 * Same two loops and prefetch as #1 (59 blocks with prefetcht0 five lines
 * ahead, then 5 blocks without), but each 64-byte block is done as load 4 /
 * store 4 / load 4 / store 4 through only four caller-saved registers
 * (r10, rax, r8, r9). The loop counters are 8-bit (decb %cl, decb %dl): the
 * counts (59 and 5) fit in a byte. Nothing callee-saved is touched, so there
 * is no stack use at all.
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096
#define PREFETCH_LINES	5

	.text
ENTRY(mg_x86_64_copy_page_interleaved4)
	movl	$(PAGE_SIZE / 64 - PREFETCH_LINES), %ecx
	.p2align 4
.Lcp4_prefetch_loop:
	/* ZF from decb survives to the jnz: mov/lea/prefetch set no flags. */
	decb	%cl
	prefetcht0 (64 * PREFETCH_LINES)(%rsi)

	movq	0x00(%rsi), %r10
	movq	0x08(%rsi), %rax
	movq	0x10(%rsi), %r8
	movq	0x18(%rsi), %r9
	movq	%r10, 0x00(%rdi)
	movq	%rax, 0x08(%rdi)
	movq	%r8,  0x10(%rdi)
	movq	%r9,  0x18(%rdi)

	movq	0x20(%rsi), %r10
	movq	0x28(%rsi), %rax
	movq	0x30(%rsi), %r8
	movq	0x38(%rsi), %r9
	movq	%r10, 0x20(%rdi)
	movq	%rax, 0x28(%rdi)
	movq	%r8,  0x30(%rdi)
	movq	%r9,  0x38(%rdi)

	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	jnz	.Lcp4_prefetch_loop

	/* The last PREFETCH_LINES blocks: same copy, no prefetch. */
	movl	$PREFETCH_LINES, %edx
	.p2align 4
.Lcp4_tail_loop:
	decb	%dl

	movq	0x00(%rsi), %r10
	movq	0x08(%rsi), %rax
	movq	0x10(%rsi), %r8
	movq	0x18(%rsi), %r9
	movq	%r10, 0x00(%rdi)
	movq	%rax, 0x08(%rdi)
	movq	%r8,  0x10(%rdi)
	movq	%r9,  0x18(%rdi)

	movq	0x20(%rsi), %r10
	movq	0x28(%rsi), %rax
	movq	0x30(%rsi), %r8
	movq	0x38(%rsi), %r9
	movq	%r10, 0x20(%rdi)
	movq	%rax, 0x28(%rdi)
	movq	%r8,  0x30(%rdi)
	movq	%r9,  0x38(%rdi)

	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	jnz	.Lcp4_tail_loop

	ret
END(mg_x86_64_copy_page_interleaved4)
