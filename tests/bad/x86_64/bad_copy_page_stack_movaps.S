/* A kernel copy_page that declares its FPU use (it runs between
 * kernel_fpu_begin and kernel_fpu_end) and spills each 16 bytes to a stack
 * slot with movaps, taking the slot at rsp - 24 as user code may, where
 * (rsp + 8) is a multiple of 16 at entry. The kernel builds with
 * -mpreferred-stack-boundary=3 and its entry leaves rsp only 8-byte
 * aligned (psABI-64 A.2.2): with rsp a multiple of 16 at entry the spill
 * raises a general-protection fault. Its twin copy_page_stack_aligned
 * includes this file with a frame it aligns itself. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_x86_64_bad_copy_page_stack_movaps
/* BUG: assumes this leaves rsp 16-aligned */
#define FRAME_ENTER subq $24, %rsp; .cfi_adjust_cfa_offset 24
#define FRAME_LEAVE addq $24, %rsp; .cfi_adjust_cfa_offset -24
#endif
	.text
ENTRY(STACK_COPY)
	FRAME_ENTER
	movl	$256, %ecx
1:	movdqu	(%rsi), %xmm0
	movaps	%xmm0, (%rsp)		/* faults unless rsp is 16-aligned */
	movdqu	(%rsp), %xmm1
	movdqu	%xmm1, (%rdi)
	addq	$16, %rsi
	addq	$16, %rdi
	decl	%ecx
	jnz	1b
	FRAME_LEAVE
	ret
END(STACK_COPY)
