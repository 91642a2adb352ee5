/* memcpy_rep_movsl: the i386 string-instruction memcpy: `rep movsl` for
 * n / 4 dwords, then `rep movsb` for the n % 4 bytes left.
 *
 * void *mg_i386_memcpy_rep_movsl(void *d, const void *s, size_t n)
 *	4(%esp) = d, 8(%esp) = s, 12(%esp) = n; returns d in eax.
 *
 * rep movsl leaves edi/esi just past what it copied, where the byte tail
 * starts. esi and edi are the caller's, so they are saved (the arguments
 * move 8 bytes further up the stack). DF = 0 on entry (ABI), so both run
 * upwards; a zero count touches no memory, so n < 4 is safe.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memcpy_rep_movsl)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	movl	%edi, %eax		/* return value */
	movl	%edx, %ecx
	shrl	$2, %ecx
	rep movsl
	movl	%edx, %ecx
	andl	$3, %ecx
	rep movsb
	popl	%edi
	popl	%esi
	ret
END(mg_i386_memcpy_rep_movsl)
