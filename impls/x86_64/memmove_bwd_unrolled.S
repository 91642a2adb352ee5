/* memmove_bwd_unrolled: VARIANTS.md #9 (2010 memmove thread).
 *
 * void *mg_x86_64_memmove_bwd_unrolled(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns the original d in rax.
 *
 * Dispatch:
 *	if (d < s || d - s >= n)  forward copy (mg_x86_64_forward_copy)
 *	else if (n <= 64)         bytes from the end
 *	else                      backward copy:
 *	    64-byte blocks from the end, each loaded and stored two quadwords
 *	    at a time, highest pair first; then the remaining whole quadwords
 *	    from the end; then the remaining bytes from the end.
 *
 * The backward path only runs with s <= d < s + n. Going downwards, every
 * unit (pair, quadword, byte) is fully loaded before it is stored, and the
 * store lands at or above the unit just read, so it only overwrites source
 * bytes that have already been read.
 *
 * rsi and rdi never move: rdx counts the bytes still to copy, which are
 * always the first rdx bytes, so the next unit is addressed as
 * -k(%rsi,%rdx). n == 0 takes the forward path (d - s >= 0 == n), which
 * touches nothing.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memmove_bwd_unrolled)
	cmpq	%rsi, %rdi
	jb	mg_x86_64_forward_copy	/* d < s */
	movq	%rdi, %rax
	subq	%rsi, %rax		/* d - s: no wrap, d >= s here */
	cmpq	%rdx, %rax
	jae	mg_x86_64_forward_copy	/* no harmful overlap */

	movq	%rdi, %rax		/* return value from here on */
	cmpq	$64, %rdx
	jbe	.Lmbu_bytes		/* 1 <= n <= 64: bytewise */

	.p2align 4
.Lmbu_blocks:
	/* One 64-byte block at [rdx-64, rdx), pairs from the top down. */
	movq	-8(%rsi,%rdx), %r8
	movq	-16(%rsi,%rdx), %r9
	movq	%r8, -8(%rdi,%rdx)
	movq	%r9, -16(%rdi,%rdx)
	movq	-24(%rsi,%rdx), %r8
	movq	-32(%rsi,%rdx), %r9
	movq	%r8, -24(%rdi,%rdx)
	movq	%r9, -32(%rdi,%rdx)
	movq	-40(%rsi,%rdx), %r8
	movq	-48(%rsi,%rdx), %r9
	movq	%r8, -40(%rdi,%rdx)
	movq	%r9, -48(%rdi,%rdx)
	movq	-56(%rsi,%rdx), %r8
	movq	-64(%rsi,%rdx), %r9
	movq	%r8, -56(%rdi,%rdx)
	movq	%r9, -64(%rdi,%rdx)
	subq	$64, %rdx
	cmpq	$64, %rdx
	jae	.Lmbu_blocks

	/* rdx < 64 now: whole quadwords from the end. */
	cmpq	$8, %rdx
	jb	.Lmbu_bytes
	.p2align 4
.Lmbu_quads:
	movq	-8(%rsi,%rdx), %r8
	movq	%r8, -8(%rdi,%rdx)
	subq	$8, %rdx
	cmpq	$8, %rdx
	jae	.Lmbu_quads

.Lmbu_bytes:
	/* rdx < 8 after the blocks, or 1..64 for the short path. */
	testq	%rdx, %rdx
	jz	.Lmbu_done
	.p2align 4
.Lmbu_byte_loop:
	movzbl	-1(%rsi,%rdx), %ecx
	movb	%cl, -1(%rdi,%rdx)
	decq	%rdx
	jnz	.Lmbu_byte_loop
.Lmbu_done:
	ret
END(mg_x86_64_memmove_bwd_unrolled)
