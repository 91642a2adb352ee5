/* Returns with `ret $4`, as if it were stdcall: the caller's stack pointer
 * comes back 4 bytes too high. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_unbalanced_stack)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %ecx		/* n */
	movl	%edi, %eax
	rep movsb
	popl	%edi
	popl	%esi
	ret	$4			/* the bug: cdecl callers pop the arguments */
END(mg_i386_bad_memcpy_unbalanced_stack)
