/* Copies backward with std; rep movsb and returns without cld: the bytes
 * are right (the buffers do not overlap), the caller's string instructions
 * now run the wrong way. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_leaves_df_set)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %ecx		/* n */
	movl	%edi, %eax
	leal	-1(%edi,%ecx), %edi	/* last byte of d */
	leal	-1(%esi,%ecx), %esi	/* last byte of s */
	std
	rep movsb
	popl	%edi			/* the bug: no cld */
	popl	%esi
	ret
END(mg_i386_bad_memcpy_leaves_df_set)
