/* i386_sse2: an i386 memcpy of 16-byte movdqu blocks: SSE2, which is no
 * part of the i386 baseline (Debian's i686: x87 and CMOV). Without
 * --requires sse2 the ISA audit reports it; the cmov is baseline.
 *
 * void *i386_sse2(void *d, const void *s, size_t n): cdecl; eax = d.
 */
	.text
	.globl	i386_sse2
	.type	i386_sse2, @function
i386_sse2:
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %ecx
	xorl	%edx, %edx
	cmpl	$16, %ecx
	cmovb	%edx, %edx
	jb	2f
1:	movdqu	(%esi), %xmm0
	movdqu	%xmm0, (%edi,%edx)
	addl	$16, %esi
	addl	$16, %edx
	subl	$16, %ecx
	cmpl	$16, %ecx
	jae	1b
2:	testl	%ecx, %ecx
	jz	4f
3:	movb	(%esi), %al
	movb	%al, (%edi,%edx)
	incl	%esi
	incl	%edx
	decl	%ecx
	jnz	3b
4:	movl	12(%esp), %eax
	popl	%edi
	popl	%esi
	ret
	.size	i386_sse2, .-i386_sse2
	.section .note.GNU-stack,"",@progbits
