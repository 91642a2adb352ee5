/* memmove_reversed_dispatch: VARIANTS.md #12, KNOWN-BAD.
 *
 * A reply in the 2010 memmove thread proposed choosing the forward copy with
 *	if ((size_t)s - (size_t)d >= n)  forward  else  backward
 * The subtraction is the wrong way round (the right test is
 * (size_t)d - (size_t)s >= n), so overlapping moves go wrong in both
 * directions:
 *  - d > s, overlapping: s - d wraps to a huge value >= n, so the forward
 *    copy runs and overwrites source bytes before reading them;
 *  - d < s, overlapping: s - d < n, so the backward copy runs and does the
 *    same from the other end.
 * Disjoint buffers (and d == s) still come out right, which is why review
 * alone did not catch it. The suite must fail it with a wrong result only.
 *
 * void *mg_x86_64_memmove_reversed_dispatch(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * The two copies themselves are correct: the forward one is the project's
 * strictly forward copy, the backward one the corrected string copy of #10
 * (std; last quadwords; rep movsq n/8; +7; rep movsb n%8; cld) but with full
 * 64-bit counts, so that the reversed test is the only bug here.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memmove_reversed_dispatch)
	movq	%rsi, %rax
	subq	%rdi, %rax		/* BUG (as proposed): s - d */
	cmpq	%rdx, %rax
	jae	mg_x86_64_forward_copy	/* "no overlap": forward */

	/* Backward copy (only reached with n > s - d, so n >= 1). */
	movq	%rdi, %rax		/* return value */
	leaq	-8(%rdi,%rdx), %rdi
	leaq	-8(%rsi,%rdx), %rsi
	movq	%rdx, %rcx
	shrq	$3, %rcx
	std
	rep movsq
	addq	$7, %rdi
	addq	$7, %rsi
	movq	%rdx, %rcx
	andq	$7, %rcx
	rep movsb
	cld
	ret
END(mg_x86_64_memmove_reversed_dispatch)
