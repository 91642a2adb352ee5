/* clear_pages_unrolled's broken twin: declared with __clear_pages_unrolled's
 * convention (args=rdi,rcx zero=rax) but it counts the lines in rdx, which
 * the convention does not let it change. Must fail as abi-violation,
 * naming rdx and the convention. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_clear_pages_unrolled_rdx)
	movq	%rcx, %rdx
	shrq	$6, %rdx
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
	decq	%rdx
	jnz	L(line)
	ret
END(mg_x86_64_bad_clear_pages_unrolled_rdx)
