/* memmove_rep_backward: VARIANTS.md #10, the corrected string-instruction
 * version from the 2010 memmove thread.
 *
 * void *mg_x86_64_memmove_rep_backward(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 *	if (d < s)  forward copy (mg_x86_64_forward_copy)
 *	else        std; rdi = d+n-8, rsi = s+n-8 (the last quadwords);
 *	            rep movsq for n/8; rdi += 7, rsi += 7 (the last byte not
 *	            yet copied); rep movsb for n%8; cld.
 *
 * With DF = 1 the string instructions walk downwards, which is the safe
 * direction for d >= s. After rep movsq the pointers sit on the quadword
 * just below the copied part (x + n%8 - 8); +7 re-aims them at its top byte
 * x + n%8 - 1, where the byte copy must start. For n < 8 the initial
 * pointers lie below the buffers, but a zero count never touches memory.
 *
 * FAITHFUL TO THE POSTING, DELIBERATELY: the counts are moved with 32-bit
 * movl, so only the low 32 bits of n make it into the quadword count while
 * the pointers use all 64 bits. Below 4 GiB this is exact; at 4 GiB and
 * above the copy is silently truncated (wrong result). The suite's >= 4 GiB
 * checks are expected to flag that.
 *
 * DF is set only around the two rep instructions and cleared again before
 * returning, as the ABI requires.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memmove_rep_backward)
	cmpq	%rsi, %rdi
	jb	mg_x86_64_forward_copy	/* d < s */

	movq	%rdi, %rax		/* return value */
	leaq	-8(%rdi,%rdx), %rdi	/* last quadword of d */
	leaq	-8(%rsi,%rdx), %rsi	/* last quadword of s */
	movl	%edx, %ecx		/* 32-bit count, as posted */
	shrl	$3, %ecx		/* quadwords: (n mod 2^32) / 8 */
	std
	rep movsq
	addq	$7, %rdi		/* top byte of the remaining head */
	addq	$7, %rsi
	movl	%edx, %ecx
	andl	$7, %ecx		/* bytes: n % 8 */
	rep movsb
	cld
	ret
END(mg_x86_64_memmove_rep_backward)
