/* Spills the count into the word above its three argument words: that word
 * is the caller's. (Writing its own argument words is allowed in cdecl:
 * see memcpy_reuses_arg_words.) */
	.text
	.globl	mg_i386_bad_memcpy_writes_caller_frame
	.type	mg_i386_bad_memcpy_writes_caller_frame, @function
	.p2align 4
mg_i386_bad_memcpy_writes_caller_frame:
	pushl	%esi
	pushl	%edi
	movl	20(%esp), %ecx		/* n */
	movl	%ecx, 24(%esp)		/* the bug: above the arguments */
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	%edi, %eax
	rep movsb
	popl	%edi
	popl	%esi
	ret
	.size	mg_i386_bad_memcpy_writes_caller_frame, .-mg_i386_bad_memcpy_writes_caller_frame

	.section .note.GNU-stack,"",@progbits
