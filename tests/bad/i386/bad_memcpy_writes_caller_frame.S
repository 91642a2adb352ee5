/* Spills the count into the word above its three argument words: that word
 * is the caller's. (Writing its own argument words is allowed in cdecl:
 * see memcpy_reuses_arg_words.) */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_writes_caller_frame)
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
END(mg_i386_bad_memcpy_writes_caller_frame)
