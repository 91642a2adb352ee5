/* Sets flush-to-zero for its copy and then "restores" MXCSR by loading the
 * default, 0x1f80, rather than what it found: right for a caller in the
 * default environment, wrong for one that runs with another rounding mode
 * or with FTZ/DAZ, whose control bits are callee-saved (psABI-32 2.2.1).
 * Its twin memcpy_restores_mxcsr includes this file and restores what it
 * saved. */
#include "asmdefs.h"
#ifndef MXCSR_COPY /* the twin defines its own */
#define MXCSR_COPY mg_i386_bad_memcpy_resets_mxcsr
#define RESTORE movl $0x1f80, (%esp); ldmxcsr (%esp)	/* BUG: the default, not the caller's */
#endif
	.text
ENTRY(MXCSR_COPY)
	pushl	%esi
	pushl	%edi
	subl	$8, %esp
	stmxcsr	4(%esp)
	movl	4(%esp), %ecx
	orl	$0x8000, %ecx		/* FZ */
	movl	%ecx, (%esp)
	ldmxcsr	(%esp)
	movl	20(%esp), %edi
	movl	24(%esp), %esi
	movl	28(%esp), %ecx
	movl	%edi, %eax
	rep movsb
	RESTORE
	addl	$8, %esp
	popl	%edi
	popl	%esi
	ret
END(MXCSR_COPY)
