/* copy_page_unrolled8: VARIANTS.md #1, the incumbent x86-64 copy_page of the
 * 2012 thread "Optimize copy_page by re-arranging instruction sequence".
 *
 * void mg_x86_64_copy_page_unrolled8(void *to, void *from)
 *	rdi = to, rsi = from; both page aligned, 4096 bytes.
 *
 * 64-byte blocks: load 8 quadwords into 8 general registers, then store the
 * 8. Eight data registers plus the counter do not fit in the free
 * caller-saved registers, so two callee-saved ones (rbx, r12) are used and
 * saved/restored on the stack. The first 4096/64 - 5 = 59 blocks prefetch
 * (prefetcht0) five cache lines ahead; the last 5 blocks run in a second
 * loop without the prefetch, so the prefetch never aims past the source
 * page (the last one issued is at from + 58*64 + 5*64 = from + 4032).
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096
#define PREFETCH_LINES	5

	.text
ENTRY(mg_x86_64_copy_page_unrolled8)
	subq	$16, %rsp
	movq	%rbx, 0(%rsp)
	movq	%r12, 8(%rsp)

	movl	$(PAGE_SIZE / 64 - PREFETCH_LINES), %ecx
	.p2align 4
.Lcp8_prefetch_loop:
	/* dec sets ZF for the jnz below: nothing in between writes flags
	 * (mov, lea and prefetch leave them alone). */
	decl	%ecx
	prefetcht0 (64 * PREFETCH_LINES)(%rsi)

	movq	0x00(%rsi), %rax
	movq	0x08(%rsi), %rbx
	movq	0x10(%rsi), %rdx
	movq	0x18(%rsi), %r8
	movq	0x20(%rsi), %r9
	movq	0x28(%rsi), %r10
	movq	0x30(%rsi), %r11
	movq	0x38(%rsi), %r12

	movq	%rax, 0x00(%rdi)
	movq	%rbx, 0x08(%rdi)
	movq	%rdx, 0x10(%rdi)
	movq	%r8,  0x18(%rdi)
	movq	%r9,  0x20(%rdi)
	movq	%r10, 0x28(%rdi)
	movq	%r11, 0x30(%rdi)
	movq	%r12, 0x38(%rdi)

	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	jnz	.Lcp8_prefetch_loop

	/* The last PREFETCH_LINES blocks: same copy, no prefetch. */
	movl	$PREFETCH_LINES, %ecx
	.p2align 4
.Lcp8_tail_loop:
	decl	%ecx

	movq	0x00(%rsi), %rax
	movq	0x08(%rsi), %rbx
	movq	0x10(%rsi), %rdx
	movq	0x18(%rsi), %r8
	movq	0x20(%rsi), %r9
	movq	0x28(%rsi), %r10
	movq	0x30(%rsi), %r11
	movq	0x38(%rsi), %r12

	movq	%rax, 0x00(%rdi)
	movq	%rbx, 0x08(%rdi)
	movq	%rdx, 0x10(%rdi)
	movq	%r8,  0x18(%rdi)
	movq	%r9,  0x20(%rdi)
	movq	%r10, 0x28(%rdi)
	movq	%r11, 0x30(%rdi)
	movq	%r12, 0x38(%rdi)

	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	jnz	.Lcp8_tail_loop

	movq	0(%rsp), %rbx
	movq	8(%rsp), %r12
	addq	$16, %rsp
	ret
END(mg_x86_64_copy_page_unrolled8)
