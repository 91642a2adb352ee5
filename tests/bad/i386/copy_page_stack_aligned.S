/* The twin of bad_copy_page_stack_movaps (i386): the same movaps spill, to
 * a slot in a frame it aligns itself (a frame pointer, then esp rounded
 * down to 16), as kernel code must on its 4-byte aligned stack (must
 * pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_copy_page_stack_aligned)
	pushl	%ebp
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %ebp, 0
	movl	%esp, %ebp
	.cfi_def_cfa_register %ebp
	andl	$-16, %esp
	subl	$16, %esp
	movl	8(%ebp), %edx		/* to */
	movl	12(%ebp), %eax		/* from */
	movl	$256, %ecx
1:	movdqu	(%eax), %xmm0
	movaps	%xmm0, (%esp)		/* 16-aligned: the frame says so */
	movdqu	(%esp), %xmm1
	movdqu	%xmm1, (%edx)
	addl	$16, %eax
	addl	$16, %edx
	decl	%ecx
	jnz	1b
	movl	%ebp, %esp
	popl	%ebp
	.cfi_def_cfa %esp, 4
	.cfi_restore %ebp
	ret
END(mg_i386_copy_page_stack_aligned)
