/* unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
 *	4(%esp) = to, 8(%esp) = from, 12(%esp) = n (cdecl: docs/contract.md IK1).
 * A byte loop: each load and store may fault on user memory and is listed
 * in the exception table; the fixup returns the bytes left (ecx), which at
 * a fault are exactly the ones from the faulting byte on. */
#include "asmdefs.h"

	.text
ENTRY(mg_i386_copy_to_user_bytes)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* to */
	movl	16(%esp), %esi		/* from */
	movl	20(%esp), %ecx		/* n */
	testl	%ecx, %ecx
	jz	L(done)
L(loop):
1:	movb	(%esi), %al
2:	movb	%al, (%edi)
	incl	%esi
	incl	%edi
	decl	%ecx
	jnz	L(loop)
L(done):
	movl	%ecx, %eax
	popl	%edi
	popl	%esi
	ret
END(mg_i386_copy_to_user_bytes)

	MG_EXTABLE_UA(1b, L(done))
	MG_EXTABLE_UA(2b, L(done))
