/* memmove_rep: the i386 string-instruction memmove.
 *
 * void *mg_i386_memmove_rep(void *d, const void *s, size_t n)
 *	4(%esp) = d, 8(%esp) = s, 12(%esp) = n; returns d in eax.
 *
 *	if (d - s >= n, unsigned)  forward: memcpy_rep_movsl (rep movsl for
 *	                           n/4, rep movsb for n%4)
 *	else                       backward: backward_copy.S (std; rep movsl;
 *	                           rep movsb from the top; cld)
 *
 * The unsigned d - s wraps when d < s, so one compare sends every case but
 * "d inside [s, s + n)" forward; only there would a forward copy overwrite
 * source bytes before reading them. Both halves take the same arguments,
 * so they are reached by a jump, with the caller's stack as it came.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memmove_rep)
	movl	4(%esp), %ecx		/* d */
	subl	8(%esp), %ecx		/* d - s */
	cmpl	12(%esp), %ecx
	jb	mg_i386_backward_copy	/* d - s < n: d overlaps s from above */
	jmp	mg_i386_memcpy_rep_movsl
END(mg_i386_memmove_rep)
