/* Counts its 4-byte words as cvtsd2si(n / 4 - 0.375): n = 4w + r gives w
 * or w - 1 words, and the bytes left are copied one by one, as long as the
 * conversion rounds to nearest, as it does in the default environment. But
 * cvtsd2si rounds as MXCSR says, and the rounding mode is the caller's
 * (C11 7.6, psABI-32 2.2.1): rounding up, it counts w + 1 words when
 * r >= 2 and copies past both ends. Its twin memcpy_truncates_count
 * includes this file with cvttsd2si, which always truncates. The
 * constants are built on the stack: no PIC register needed. */
#include "asmdefs.h"
#ifndef ROUND_COPY /* the twin defines its own */
#define ROUND_COPY mg_i386_bad_memcpy_rounds_count
#define TO_WORDS cvtsd2si	/* BUG: rounds as MXCSR's RC says */
#endif
	.text
ENTRY(ROUND_COPY)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %edx
	pushl	$0x3fd80000		/* 0.375 */
	pushl	$0
	pushl	$0x3fd00000		/* 0.25 */
	pushl	$0
	cvtsi2sdl	%edx, %xmm0	/* below 2^31: the lengths memcpy cases take here */
	mulsd	(%esp), %xmm0
	subsd	8(%esp), %xmm0
	addl	$16, %esp
	TO_WORDS	%xmm0, %ecx
	testl	%ecx, %ecx
	jns	1f
	xorl	%ecx, %ecx		/* n < 2 */
1:	leal	(,%ecx,4), %eax
	subl	%eax, %edx		/* the bytes after the words */
	movl	%edi, %eax
	rep movsl
	movl	%edx, %ecx
	testl	%ecx, %ecx
	jle	2f			/* more words than fit: nothing after them */
	rep movsb
2:	popl	%edi
	popl	%esi
	ret
END(ROUND_COPY)
