/* memset_rep_stosb: memset as a single `rep stosb`. Correct everywhere;
 * fast only with ERMS, hence the feature declared in the table.
 *
 * void *mg_x86_64_memset_rep_stosb(void *d, int c, size_t n)
 *	rdi = d, esi = c (only its low byte counts), rdx = n; returns d.
 *
 * rep stosb stores al only, so whatever the caller left in the upper bits
 * of c (or of rsi) cannot leak into the fill. rdi is advanced by the
 * instruction, so the return value is saved in r8 first. DF = 0 on entry.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memset_rep_stosb)
	movq	%rdi, %r8
	movzbl	%sil, %eax		/* al = (unsigned char)c */
	movq	%rdx, %rcx
	rep stosb
	movq	%r8, %rax
	ret
END(mg_x86_64_memset_rep_stosb)
