/* Copies 8 bytes at a time through mm0 and returns without emms: right
 * bytes, but the CPU is left in MMX mode, every x87 register tagged valid,
 * and the caller's next x87 push overflows (psABI-64 3.2.1: a function
 * that uses the MMX registers issues emms before it returns). */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_mmx_no_emms)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	shrq	$3, %rcx
	jz	2f
1:	movq	(%rsi), %mm0
	movq	%mm0, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	decq	%rcx
	jnz	1b
2:	movq	%rdx, %rcx
	andq	$7, %rcx
	rep movsb
	ret				/* BUG: no emms */
END(mg_x86_64_bad_memcpy_mmx_no_emms)
