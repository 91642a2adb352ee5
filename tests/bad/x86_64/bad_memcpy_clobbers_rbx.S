/* Uses the callee-saved rbx as a scratch register without saving it: the
 * copy is right, the caller's rbx is gone. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_clobbers_rbx)
	movq	%rdi, %rax
	xorl	%ecx, %ecx
1:	cmpq	%rdx, %rcx
	je	2f
	movzbq	(%rsi,%rcx), %rbx
	movb	%bl, (%rdi,%rcx)
	incq	%rcx
	jmp	1b
2:	ret
END(mg_x86_64_bad_memcpy_clobbers_rbx)
