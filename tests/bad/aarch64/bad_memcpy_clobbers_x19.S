/* Uses the callee-saved x19 as a scratch register without saving it: the
 * copy is right, the caller's x19 is gone. */
	.text
	.globl	mg_aarch64_bad_memcpy_clobbers_x19
	.type	mg_aarch64_bad_memcpy_clobbers_x19, %function
	.p2align 4
mg_aarch64_bad_memcpy_clobbers_x19:
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldrb	w19, [x1, x3]
	strb	w19, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
	.size	mg_aarch64_bad_memcpy_clobbers_x19, .-mg_aarch64_bad_memcpy_clobbers_x19

	.section .note.GNU-stack,"",%progbits
