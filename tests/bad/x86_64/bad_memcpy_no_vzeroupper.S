/* A correct AVX2 copy (32-byte blocks, then bytes) that returns without
 * vzeroupper: no failure, but a warning, since the caller's SSE code then
 * pays for the dirty upper state. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_no_vzeroupper)
	movq	%rdi, %rax
1:	cmpq	$32, %rdx
	jb	2f
	vmovdqu	(%rsi), %ymm0
	vmovdqu	%ymm0, (%rdi)
	addq	$32, %rsi
	addq	$32, %rdi
	subq	$32, %rdx
	jmp	1b
2:	movq	%rdx, %rcx
	rep movsb
	ret				/* no vzeroupper */
END(mg_x86_64_bad_memcpy_no_vzeroupper)
