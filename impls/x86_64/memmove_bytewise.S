/* memmove_bytewise: VARIANTS.md #8, the incumbent x86-64 memmove of the
 * 2010 thread "x86_64/lib: improve the performance of memmove".
 *
 * void *mg_x86_64_memmove_bytewise(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * If d < s, a forward copy is safe whatever the overlap, so tail-jump to the
 * project's strictly forward copy (mg_x86_64_forward_copy, which returns d
 * itself). Otherwise (d >= s) copy one byte at a time from the end, which is
 * safe for any overlap with d above s. d == s takes the byte loop and
 * rewrites every byte with itself.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memmove_bytewise)
	cmpq	%rsi, %rdi
	jb	mg_x86_64_forward_copy	/* unsigned d < s */

	movq	%rdi, %rax		/* return value */
	testq	%rdx, %rdx
	jz	.Lmb_done		/* n == 0: touch nothing */
	.p2align 4
.Lmb_loop:
	/* rdx counts down from n: byte n-1 first, byte 0 last. */
	movzbl	-1(%rsi,%rdx), %ecx
	movb	%cl, -1(%rdi,%rdx)
	decq	%rdx
	jnz	.Lmb_loop
.Lmb_done:
	ret
END(mg_x86_64_memmove_bytewise)
