/* The tail read of glibc's __memmove_ssse3, on its own: it loads the
 * aligned 16-byte block that holds the source's last byte, which reads up
 * to 15 bytes past the end (or before the start, for n < 16) but never
 * leaves that block, so it cannot fault on any MMU. It takes the last byte
 * from that block, copies the others with rep movsb, and returns dst: the
 * bytes are always right. Must pass; under memcheck it is the
 * aligned-over-read warning (width 16), and a failure with
 * --overread=strict.
 *
 * void *mg_x86_64_bad_memcpy_reads_aligned_block(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax. n == 0 loads nothing.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_reads_aligned_block)
	movq	%rdi, %rax
	testq	%rdx, %rdx
	jz	1f
	leaq	-1(%rsi,%rdx), %r8	/* the source's last byte */
	movq	%r8, %r9
	andq	$-16, %r9		/* its aligned 16-byte block */
	movdqa	(%r9), %xmm0		/* the whole block: the over-read */
	movdqu	%xmm0, -16(%rsp)	/* leaf function: the red zone is ours */
	subq	%r9, %r8		/* the last byte's place in the block */
	movzbl	-16(%rsp,%r8), %r10d
	movb	%r10b, -1(%rdi,%rdx)
	movq	%rdx, %rcx
	decq	%rcx
	rep movsb			/* the other n - 1 bytes */
1:	ret
END(mg_x86_64_bad_memcpy_reads_aligned_block)
