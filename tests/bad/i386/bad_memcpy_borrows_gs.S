/* Reads its source through gs, loaded with the flat data selector for the
 * copy, and puts the thread's gs back before it returns. Its caller finds
 * gs as it was, but a signal that arrives during the copy runs its handler
 * with this gs (Linux delivers it with the interrupted gs), and the
 * handler's thread data (errno) is read from the wrong place: gs is the
 * system's for every instruction, not only at the return. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_borrows_gs)
	pushl	%esi
	pushl	%edi
	pushl	%gs
	movl	16(%esp), %edi		/* d */
	movl	20(%esp), %esi		/* s */
	movl	24(%esp), %ecx		/* n */
	movl	%edi, %eax
	movw	%ds, %dx
	movw	%dx, %gs
	testl	%ecx, %ecx
	je	2f
1:	movb	%gs:(%esi), %dl
	movb	%dl, (%edi)
	incl	%esi
	incl	%edi
	decl	%ecx
	jne	1b
2:	popl	%gs
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_borrows_gs)
