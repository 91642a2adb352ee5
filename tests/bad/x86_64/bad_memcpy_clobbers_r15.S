/* Uses the callee-saved r15 as a scratch register without saving it: the
 * copy is right, the caller's r15 is gone. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_clobbers_r15)
	movq	%rdi, %rax
	xorl	%ecx, %ecx
1:	cmpq	%rdx, %rcx
	je	2f
	movzbq	(%rsi,%rcx), %r15
	movb	%r15b, (%rdi,%rcx)
	incq	%rcx
	jmp	1b
2:	ret
END(mg_x86_64_bad_memcpy_clobbers_r15)
