/* Lowers the x87 precision control to 24 bits and leaves it there: the
 * control word is callee-saved (psABI-32 2.2.1). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_changes_x87_cw)
	subl	$4, %esp
	fnstcw	(%esp)
	andw	$0xfcff, (%esp)		/* PC = 00: single precision */
	fldcw	(%esp)
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
END(mg_i386_bad_memcpy_changes_x87_cw)
