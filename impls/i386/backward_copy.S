/* mg_i386_backward_copy: the backward half of the i386 memmoves.
 *
 * Not a variant on its own: memmove_rep (and its broken twin in tests/bad)
 * call it when the destination overlaps the source from above, where a
 * forward copy would overwrite source bytes before reading them.
 *
 * void *mg_i386_backward_copy(void *d, const void *s, size_t n)
 *	4(%esp) = d, 8(%esp) = s, 12(%esp) = n; returns d in eax.
 *
 * std; edi = d+n-4, esi = s+n-4 (the last dwords); rep movsl for n/4;
 * edi += 3, esi += 3 (the top byte not yet copied); rep movsb for n%4; cld.
 * With DF = 1 the string instructions walk downwards. After rep movsl the
 * pointers sit on the dword just below the copied part; +3 re-aims them at
 * its top byte. For n < 4 the first pointers lie below the buffers, but a
 * zero count never touches memory. DF is set only around the two rep
 * instructions (the ABI wants it clear on return); esi and edi are the
 * caller's and are saved.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_backward_copy)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	movl	%edi, %eax		/* return value */
	leal	-4(%edi,%edx), %edi	/* last dword of d */
	leal	-4(%esi,%edx), %esi	/* last dword of s */
	movl	%edx, %ecx
	shrl	$2, %ecx
	std
	rep movsl
	addl	$3, %edi		/* top byte of the remaining head */
	addl	$3, %esi
	movl	%edx, %ecx
	andl	$3, %ecx
	rep movsb
	cld
	popl	%edi
	popl	%esi
	ret
END(mg_i386_backward_copy)
