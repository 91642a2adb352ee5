/* Uses the callee-saved ebx as a scratch register without saving it: the
 * copy is right, the caller's ebx is gone. (esi and edi are saved, so ebx
 * is the one the diagnosis must name.) */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_clobbers_ebx)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	xorl	%ecx, %ecx
1:	cmpl	%edx, %ecx
	je	2f
	movzbl	(%esi,%ecx), %ebx
	movb	%bl, (%edi,%ecx)
	incl	%ecx
	jmp	1b
2:	movl	%edi, %eax
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_clobbers_ebx)
