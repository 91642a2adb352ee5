/* Copies, then loads the null selector into gs and restores nothing: gs is
 * the thread pointer, reserved for the system (psABI-32, the Register
 * Usage table), and the caller's next access to its thread's data (errno,
 * the stack protector's canary at %gs:0x14) faults. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_clears_gs)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %ecx		/* n */
	movl	%edi, %eax
	rep movsb
	xorl	%edx, %edx
	movw	%dx, %gs		/* BUG: the thread pointer */
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_clears_gs)
