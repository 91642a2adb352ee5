/* Misaligned aligned-load: movaps requires a 16-byte aligned address and
 * raises a general-protection fault otherwise. The table declares no
 * alignment contract, so any misaligned source must be caught as a crash.
 * The copy itself is a plain byte loop. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_movaps)
	movq	%rdi, %rax
	cmpq	$16, %rdx
	jb	1f
	movaps	(%rsi), %xmm0		/* faults unless src is 16-aligned */
1:	xorl	%ecx, %ecx
2:	cmpq	%rdx, %rcx
	je	3f
	movzbl	(%rsi,%rcx), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	jmp	2b
3:	ret
END(mg_x86_64_bad_memcpy_movaps)
