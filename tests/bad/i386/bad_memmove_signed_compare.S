/* memmove_rep with its dispatch compare made signed: `jl` where `jb`
 * belongs. When d < s, d - s is "negative" and so less than n: overlapping
 * buffers with the destination below the source are copied backward, which
 * overwrites source bytes before they are read. (Disjoint buffers are right
 * either way, overlapping ones with d above s too.) */
	.text
	.globl	mg_i386_bad_memmove_signed_compare
	.type	mg_i386_bad_memmove_signed_compare, @function
	.p2align 4
mg_i386_bad_memmove_signed_compare:
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	movl	%edi, %eax
	movl	%edi, %ecx
	subl	%esi, %ecx		/* d - s */
	cmpl	%edx, %ecx
	jl	.Lbackward		/* the bug: a signed compare */
	movl	%edx, %ecx
	shrl	$2, %ecx
	rep movsl
	movl	%edx, %ecx
	andl	$3, %ecx
	rep movsb
	popl	%edi
	popl	%esi
	ret
.Lbackward:
	leal	-4(%edi,%edx), %edi
	leal	-4(%esi,%edx), %esi
	movl	%edx, %ecx
	shrl	$2, %ecx
	std
	rep movsl
	addl	$3, %edi
	addl	$3, %esi
	movl	%edx, %ecx
	andl	$3, %ecx
	rep movsb
	cld
	popl	%edi
	popl	%esi
	ret
	.size	mg_i386_bad_memmove_signed_compare, .-mg_i386_bad_memmove_signed_compare

	.section .note.GNU-stack,"",@progbits
