/* Sets flush-to-zero for its copy and then "restores" MXCSR by loading the
 * default, 0x1f80, rather than what it found: right for a caller in the
 * default environment, wrong for one that runs with another rounding mode
 * or with FTZ/DAZ, whose control bits are callee-saved (psABI-64 3.2.1).
 * Its twin memcpy_restores_mxcsr includes this file and restores what it
 * saved. */
#include "asmdefs.h"
#ifndef MXCSR_COPY /* the twin defines its own */
#define MXCSR_COPY mg_x86_64_bad_memcpy_resets_mxcsr
#define RESTORE ldmxcsr L(default)(%rip)	/* BUG: the default, not the caller's */
#endif
	.section .rodata
	.p2align 2
L(default):
	.long	0x1f80
	.text
ENTRY(MXCSR_COPY)
	stmxcsr	-8(%rsp)		/* in the red zone */
	movl	-8(%rsp), %ecx
	orl	$0x8000, %ecx		/* FZ */
	movl	%ecx, -4(%rsp)
	ldmxcsr	-4(%rsp)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	RESTORE
	ret
END(MXCSR_COPY)
