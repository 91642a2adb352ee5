/* memcpy_rep_movsb: a single `rep movsb`, the i386 twin of x86-64's
 * memcpy_erms (VARIANTS.md #15). Correct everywhere; fast only with ERMS,
 * hence the feature declared in the table.
 *
 * void *mg_i386_memcpy_rep_movsb(void *d, const void *s, size_t n)
 *	4(%esp) = d, 8(%esp) = s, 12(%esp) = n; returns d in eax.
 *
 * esi and edi are the caller's and are saved. DF = 0 on entry (ABI), so the
 * copy runs upwards; ecx = 0 touches nothing.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memcpy_rep_movsb)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %ecx		/* n */
	movl	%edi, %eax
	rep movsb
	popl	%edi
	popl	%esi
	ret
END(mg_i386_memcpy_rep_movsb)
