/* Not a failure: the same MMX copy, with emms before it returns. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_mmx_emms)
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
	emms
	ret
END(mg_x86_64_memcpy_mmx_emms)
