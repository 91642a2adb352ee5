/* A kernel copy_page that moves 16 bytes at a time through xmm0-xmm3
 * without kernel_fpu_begin: correct bytes, but in the kernel it would
 * overwrite the vector registers of whatever task it interrupted. The
 * kernel contract's no-FPU rule must name it. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_copy_page_uses_sse)
	movl	$4096, %ecx
1:	movdqu	0(%rsi), %xmm0
	movdqu	16(%rsi), %xmm1
	movdqu	32(%rsi), %xmm2
	movdqu	48(%rsi), %xmm3
	movdqu	%xmm0, 0(%rdi)
	movdqu	%xmm1, 16(%rdi)
	movdqu	%xmm2, 32(%rdi)
	movdqu	%xmm3, 48(%rdi)
	addq	$64, %rsi
	addq	$64, %rdi
	subl	$64, %ecx
	jnz	1b
	ret
END(mg_x86_64_bad_copy_page_uses_sse)
