/* clear_page with __clear_pages_unrolled's register convention (the newest
 * kernels' clear_pages(), arch/x86/include/asm/page_64.h, calls it from
 * inline assembly with "+c" (len), "+D" (addr) and "a" (0)):
 *	args=rdi,rcx zero=rax
 * the page in rdi, its length in rcx (4096 here), rax zero at entry and
 * the value stored; may change rdi and rcx, and nothing else. Eight
 * quadword stores of rax per 64 bytes. Called with the C convention it
 * fills the page with whatever rax held (docs/conventions.md). Written for
 * memgate's tests. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_clear_pages_unrolled)
	shrq	$6, %rcx
L(line):
	movq	%rax, 0(%rdi)
	movq	%rax, 8(%rdi)
	movq	%rax, 16(%rdi)
	movq	%rax, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rax, 40(%rdi)
	movq	%rax, 48(%rdi)
	movq	%rax, 56(%rdi)
	addq	$64, %rdi
	decq	%rcx
	jnz	L(line)
	ret
END(mg_x86_64_clear_pages_unrolled)
