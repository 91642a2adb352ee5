/* An i386 kernel copy_page (FPU declared) that spills each 16 bytes to a
 * stack slot with movaps, taking the slot at esp - 28 as user code may,
 * where (esp + 4) is a multiple of 16 at entry. The kernel builds with
 * cc_stack_align4: esp is only 4-byte aligned, and wherever (esp + 4) mod
 * 16 is not 0 the spill raises a general-protection fault. Its twin
 * copy_page_stack_aligned includes this file with a frame it aligns
 * itself. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_i386_bad_copy_page_stack_movaps
/* BUG: assumes this leaves esp 16-aligned */
#define FRAME_ENTER subl $28, %esp; .cfi_adjust_cfa_offset 28
#define FRAME_LEAVE addl $28, %esp; .cfi_adjust_cfa_offset -28
#endif
	.text
ENTRY(STACK_COPY)
	movl	4(%esp), %edx		/* to */
	movl	8(%esp), %eax		/* from */
	FRAME_ENTER
	movl	$256, %ecx
1:	movdqu	(%eax), %xmm0
	movaps	%xmm0, (%esp)		/* faults unless esp is 16-aligned */
	movdqu	(%esp), %xmm1
	movdqu	%xmm1, (%edx)
	addl	$16, %eax
	addl	$16, %edx
	decl	%ecx
	jnz	1b
	FRAME_LEAVE
	ret
END(STACK_COPY)
