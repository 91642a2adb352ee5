/* Counts its 8-byte words as cvtsd2si(n / 8 - 0.4375): n = 8w + r gives w
 * or w - 1 words, and the bytes left are copied one by one, as long as the
 * conversion rounds to nearest, as it does in the default environment. But
 * cvtsd2si rounds as MXCSR says, and the rounding mode is the caller's
 * (C11 7.6, psABI-64 3.2.1): rounding up, it counts w + 1 words when
 * r >= 4 and copies past both ends. (Rounding down or toward zero, w - 1
 * words and eight more bytes are still right.) Its twin
 * memcpy_truncates_count includes this file with cvttsd2si, which always
 * truncates. */
#include "asmdefs.h"
#ifndef ROUND_COPY /* the twin defines its own */
#define ROUND_COPY mg_x86_64_bad_memcpy_rounds_count
#define TO_WORDS cvtsd2si	/* BUG: rounds as MXCSR's RC says */
#endif
	.section .rodata
	.p2align 3
L(eighth):
	.double	0.125
L(bias):
	.double	0.4375
	.text
ENTRY(ROUND_COPY)
	movq	%rdi, %rax
	movq	%rdx, %r8
	cvtsi2sdq	%rdx, %xmm0
	mulsd	L(eighth)(%rip), %xmm0
	subsd	L(bias)(%rip), %xmm0
	TO_WORDS	%xmm0, %rcx
	testq	%rcx, %rcx
	jns	1f
	xorl	%ecx, %ecx		/* n < 4 */
1:	leaq	(,%rcx,8), %rdx
	subq	%rdx, %r8		/* the bytes after the words */
	rep movsq
	movq	%r8, %rcx
	testq	%rcx, %rcx
	jle	2f			/* more words than fit: nothing after them */
	rep movsb
2:	ret
END(ROUND_COPY)
