/* rep movsl for the whole dwords, then a byte loop for the tail that runs
 * while i <= n % 4 instead of i < n % 4: one byte too many. It reads the
 * byte past the end of the source and writes it past the end of the
 * destination; which one the sandbox sees first depends on which buffer
 * sits against its guard page. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_tail_off_by_one)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	movl	%edx, %ecx
	shrl	$2, %ecx
	rep movsl
	andl	$3, %edx		/* tail bytes */
	xorl	%ecx, %ecx
1:	cmpl	%edx, %ecx
	ja	2f			/* the bug: should stop at ecx == edx */
	movb	(%esi,%ecx), %al
	movb	%al, (%edi,%ecx)
	incl	%ecx
	jmp	1b
2:	movl	12(%esp), %eax
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_tail_off_by_one)
