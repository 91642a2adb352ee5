/* Sets flush-to-zero and denormals-are-zero and never puts MXCSR back:
 * its control bits are callee-saved on i386 too (psABI-32 2.2.1). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_changes_mxcsr)
	subl	$4, %esp
	stmxcsr	(%esp)
	orl	$0x8040, (%esp)		/* FZ | DAZ */
	ldmxcsr	(%esp)
	addl	$4, %esp
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %ecx
	movl	%edi, %eax
	rep movsb
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_changes_mxcsr)
