/* Not a failure: the same byte loop with its scratch slot 64 bytes below
 * rsp, inside the red zone, which user code owns (psABI-64 3.2.2) and
 * signal handlers leave alone. The interrupt situation must accept it. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_uses_red_zone)
	movq	%rdi, %rax
	testq	%rdx, %rdx
	jz	2f
	xorl	%ecx, %ecx
1:	movzbl	(%rsi,%rcx), %r8d
	movb	%r8b, -64(%rsp)
	movzbl	-64(%rsp), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	cmpq	%rdx, %rcx
	jne	1b
2:	ret
END(mg_x86_64_memcpy_uses_red_zone)
