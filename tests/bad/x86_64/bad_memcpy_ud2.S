/* An instruction the CPU does not have: ud2 stands for one (say, AVX-512 on
 * a CPU without it) on one length, and must be caught as a crash. */
	.text
	.globl mg_x86_64_bad_memcpy_ud2
	.type mg_x86_64_bad_memcpy_ud2, @function
	.p2align 4
mg_x86_64_bad_memcpy_ud2:
	movq	%rdi, %rax
	cmpq	$33, %rdx
	jne	1f
	ud2
1:	movq	%rdx, %rcx
	rep movsb
	ret
	.size mg_x86_64_bad_memcpy_ud2, .-mg_x86_64_bad_memcpy_ud2
	.section .note.GNU-stack,"",@progbits
