/* As the kernel's arch/x86/lib/memcpy_64.S is laid out: the global memcpy
 * picks an implementation, and the one under review, memcpy_orig, is a
 * local label (SYM_FUNC_START_LOCAL). The gate takes it by name. */
	.text
	.globl	kmemcpy
	.type	kmemcpy, @function
kmemcpy:
	jmp	memcpy_orig
	.size	kmemcpy, .-kmemcpy

	.type	memcpy_orig, @function
memcpy_orig:			/* rdi dst, rsi src, rdx n; returns dst */
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
	.size	memcpy_orig, .-memcpy_orig
	.section .note.GNU-stack,"",@progbits
