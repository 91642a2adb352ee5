/* memset_rep_stosl: the i386 string-instruction memset: `rep stosl` for
 * n / 4 dwords, then `rep stosb` for the n % 4 bytes left.
 *
 * void *mg_i386_memset_rep_stosl(void *d, int c, size_t n)
 *	4(%esp) = d, 8(%esp) = c (only its low byte counts), 12(%esp) = n;
 *	returns d in eax.
 *
 * The fill dword is the low byte of c times 0x01010101: only that byte is
 * loaded, so whatever the rest of c holds cannot leak into the fill.
 * rep stosl leaves edi where the byte tail starts. edi is the caller's and
 * is saved; the return value waits in edx. DF = 0 on entry (ABI).
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memset_rep_stosl)
	pushl	%edi
	movl	8(%esp), %edi		/* d */
	movzbl	12(%esp), %eax		/* (unsigned char)c */
	imull	$0x01010101, %eax, %eax	/* in all four bytes */
	movl	16(%esp), %ecx		/* n */
	movl	%edi, %edx		/* return value */
	shrl	$2, %ecx
	rep stosl
	movl	16(%esp), %ecx
	andl	$3, %ecx
	rep stosb
	movl	%edx, %eax
	popl	%edi
	ret
END(mg_i386_memset_rep_stosl)
