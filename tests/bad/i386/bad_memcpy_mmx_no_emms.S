/* Copies 8 bytes at a time through mm0 and returns without emms: the CPU
 * is left in MMX mode (psABI-32 2.2.1 asks for emms before returning). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_mmx_no_emms)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %edx
	movl	%edi, %eax
	movl	%edx, %ecx
	shrl	$3, %ecx
	jz	2f
1:	movq	(%esi), %mm0
	movq	%mm0, (%edi)
	addl	$8, %esi
	addl	$8, %edi
	decl	%ecx
	jnz	1b
2:	movl	%edx, %ecx
	andl	$7, %ecx
	rep movsb
	popl	%edi
	popl	%esi
	ret				/* BUG: no emms */
END(mg_i386_bad_memcpy_mmx_no_emms)
