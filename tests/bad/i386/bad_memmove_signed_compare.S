/* memmove_rep with its dispatch compare made signed: `jl` where `jb`
 * belongs. When d < s, d - s is "negative" and so less than n: overlapping
 * buffers with the destination below the source are copied backward, which
 * overwrites source bytes before they are read. (Disjoint buffers are right
 * either way, overlapping ones with d above s too.) The two halves are
 * memmove_rep's own. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memmove_signed_compare)
	movl	4(%esp), %ecx		/* d */
	subl	8(%esp), %ecx		/* d - s */
	cmpl	12(%esp), %ecx
	jl	mg_i386_backward_copy	/* the bug: a signed compare */
	jmp	mg_i386_memcpy_rep_movsl
END(mg_i386_bad_memmove_signed_compare)
