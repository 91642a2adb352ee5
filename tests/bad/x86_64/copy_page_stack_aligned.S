/* The twin of bad_copy_page_stack_movaps: the same movaps spill, to a slot
 * in a frame it aligns itself (a frame pointer, then rsp rounded down to
 * 16), as kernel code must on its 8-byte aligned stack (must pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_copy_page_stack_aligned)
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	subq	$16, %rsp
	movl	$256, %ecx
1:	movdqu	(%rsi), %xmm0
	movaps	%xmm0, (%rsp)		/* 16-aligned: the frame says so */
	movdqu	(%rsp), %xmm1
	movdqu	%xmm1, (%rdi)
	addq	$16, %rsi
	addq	$16, %rdi
	decl	%ecx
	jnz	1b
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
END(mg_x86_64_copy_page_stack_aligned)
