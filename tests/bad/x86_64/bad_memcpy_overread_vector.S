/* Vector over-read: copies in 16-byte unaligned loads, and loads the tail
 * as a whole vector too, so it reads up to 15 bytes past the end of the
 * source. It stores exactly n bytes (the tail goes out byte by byte through
 * the stack red zone) and returns dst, so the bytes are always right.
 *
 * A guard page sees the over-read only when the source ends flush with it;
 * at any other alignment only valgrind mode (harness/engine/memcheck.c) sees it.
 *
 * void *mg_x86_64_bad_memcpy_overread_vector(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax. n == 0 loads nothing.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_overread_vector)
	movq	%rdi, %rax
	xorl	%ecx, %ecx		/* offset of the next vector */
1:	leaq	16(%rcx), %r8
	cmpq	%rdx, %r8
	ja	2f			/* fewer than 16 bytes left */
	movdqu	(%rsi,%rcx), %xmm0
	movdqu	%xmm0, (%rdi,%rcx)
	movq	%r8, %rcx
	jmp	1b
2:	cmpq	%rdx, %rcx
	je	4f
	movdqu	(%rsi,%rcx), %xmm0	/* the bug: 16 bytes for the last n % 16 */
	movdqu	%xmm0, -16(%rsp)	/* leaf function: the red zone is ours */
	leaq	-16(%rsp), %r9
	subq	%rcx, %r9		/* r9 + offset = the spilled byte */
3:	movzbl	(%r9,%rcx), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	cmpq	%rdx, %rcx
	jne	3b
4:	ret
END(mg_x86_64_bad_memcpy_overread_vector)
