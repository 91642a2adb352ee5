/* A byte loop that keeps each byte 4 bytes below esp. The i386 ABI has no
 * red zone: a signal handler's frame lands right below esp. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_below_esp)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %ecx		/* n */
	movl	%edi, %eax
	testl	%ecx, %ecx
	jz	2f
1:	movzbl	(%esi), %edx
	movb	%dl, -4(%esp)		/* BUG: below esp */
	movzbl	-4(%esp), %edx
	movb	%dl, (%edi)
	incl	%esi
	incl	%edi
	decl	%ecx
	jnz	1b
2:	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_below_esp)
