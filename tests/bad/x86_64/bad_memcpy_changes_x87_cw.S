/* Lowers the x87 precision control to 24 bits and leaves it there. */
	.text
	.globl mg_x86_64_bad_memcpy_changes_x87_cw
	.type mg_x86_64_bad_memcpy_changes_x87_cw, @function
	.p2align 4
mg_x86_64_bad_memcpy_changes_x87_cw:
	fnstcw	-2(%rsp)
	andw	$0xfcff, -2(%rsp)	/* PC = 00: single precision */
	fldcw	-2(%rsp)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
	.size mg_x86_64_bad_memcpy_changes_x87_cw, .-mg_x86_64_bad_memcpy_changes_x87_cw
	.section .note.GNU-stack,"",@progbits
