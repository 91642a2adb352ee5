/* Uses the callee-saved rbx as a scratch register without saving it: the
 * copy is right, the caller's rbx is gone. */
	.text
	.globl mg_x86_64_bad_memcpy_clobbers_rbx
	.type mg_x86_64_bad_memcpy_clobbers_rbx, @function
	.p2align 4
mg_x86_64_bad_memcpy_clobbers_rbx:
	movq	%rdi, %rax
	xorl	%ecx, %ecx
1:	cmpq	%rdx, %rcx
	je	2f
	movzbq	(%rsi,%rcx), %rbx
	movb	%bl, (%rdi,%rcx)
	incq	%rcx
	jmp	1b
2:	ret
	.size mg_x86_64_bad_memcpy_clobbers_rbx, .-mg_x86_64_bad_memcpy_clobbers_rbx
	.section .note.GNU-stack,"",@progbits
