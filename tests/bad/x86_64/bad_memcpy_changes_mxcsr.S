/* Sets flush-to-zero and denormals-are-zero (a "fast math" tweak for its
 * own vector code) and never puts MXCSR back. */
	.text
	.globl mg_x86_64_bad_memcpy_changes_mxcsr
	.type mg_x86_64_bad_memcpy_changes_mxcsr, @function
	.p2align 4
mg_x86_64_bad_memcpy_changes_mxcsr:
	stmxcsr	-4(%rsp)
	orl	$0x8040, -4(%rsp)	/* FZ | DAZ */
	ldmxcsr	-4(%rsp)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
	.size mg_x86_64_bad_memcpy_changes_mxcsr, .-mg_x86_64_bad_memcpy_changes_mxcsr
	.section .note.GNU-stack,"",@progbits
