/* Returns with `ret $8`, the callee-pops habit of 32-bit stdcall: the
 * caller gets control back with its stack pointer 8 bytes too high. */
	.text
	.globl mg_x86_64_bad_memcpy_unbalanced_stack
	.type mg_x86_64_bad_memcpy_unbalanced_stack, @function
	.p2align 4
mg_x86_64_bad_memcpy_unbalanced_stack:
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret	$8
	.size mg_x86_64_bad_memcpy_unbalanced_stack, .-mg_x86_64_bad_memcpy_unbalanced_stack
	.section .note.GNU-stack,"",@progbits
