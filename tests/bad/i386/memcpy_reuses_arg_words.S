/* Not a failure: in cdecl the argument words belong to the callee, which
 * may overwrite them. This copy saves the caller's edi and esi in its d and
 * s words instead of pushing them; the trampoline must not call that a
 * violation. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memcpy_reuses_arg_words)
	movl	4(%esp), %eax		/* d, the return value */
	movl	8(%esp), %edx		/* s */
	movl	12(%esp), %ecx		/* n */
	movl	%edi, 4(%esp)
	movl	%esi, 8(%esp)
	movl	%eax, %edi
	movl	%edx, %esi
	rep movsb
	movl	4(%esp), %edi
	movl	8(%esp), %esi
	ret
END(mg_i386_memcpy_reuses_arg_words)
