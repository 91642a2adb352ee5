/* A byte loop that keeps each byte in a scratch slot 200 bytes below rsp,
 * past the 128-byte red zone: correct bytes, and nothing changes it while
 * nothing interrupts the call, but a signal handler's frame would. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_below_red_zone)
	movq	%rdi, %rax
	testq	%rdx, %rdx
	jz	2f
	xorl	%ecx, %ecx
1:	movzbl	(%rsi,%rcx), %r8d
	movb	%r8b, -200(%rsp)	/* BUG: below the red zone */
	movzbl	-200(%rsp), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	cmpq	%rdx, %rcx
	jne	1b
2:	ret
END(mg_x86_64_bad_memcpy_below_red_zone)
