/* unsigned long clear_user(void __user *to, unsigned long n)
 *	4(%esp) = to, 8(%esp) = n (cdecl: docs/contract.md IK1).
 * A byte loop of stores, each listed in the exception table; the fixup
 * returns the bytes left (ecx). */
#include "asmdefs.h"

	.text
ENTRY(mg_i386_clear_user_bytes)
	pushl	%edi
	movl	8(%esp), %edi		/* to */
	movl	12(%esp), %ecx		/* n */
	testl	%ecx, %ecx
	jz	L(done)
L(loop):
1:	movb	$0, (%edi)
	incl	%edi
	decl	%ecx
	jnz	L(loop)
L(done):
	movl	%ecx, %eax
	popl	%edi
	ret
END(mg_i386_clear_user_bytes)

	MG_EXTABLE_UA(1b, L(done))
