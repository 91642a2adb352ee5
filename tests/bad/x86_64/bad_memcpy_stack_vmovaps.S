/* Copies in 32-byte blocks through ymm0 and spills each block to a stack
 * slot with vmovaps, which needs 32-byte alignment: it takes the slot at
 * rsp - 56, aligned where (rsp + 8) was a multiple of 32 at entry, as it
 * was where it was written. The ABI promises only 16 (psABI-64 3.2.2):
 * with (rsp + 8) mod 32 = 16 at entry the spill raises a general-protection
 * fault. Its twin memcpy_stack_aligned includes this file with a frame it
 * aligns itself. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_x86_64_bad_memcpy_stack_vmovaps
/* BUG: assumes this leaves rsp 32-aligned */
#define FRAME_ENTER subq $56, %rsp; .cfi_adjust_cfa_offset 56
#define FRAME_LEAVE addq $56, %rsp; .cfi_adjust_cfa_offset -56
#endif
	.text
ENTRY(STACK_COPY)
	FRAME_ENTER
	movq	%rdi, %rax
	xorl	%ecx, %ecx
L(block):
	leaq	32(%rcx), %r8
	cmpq	%rdx, %r8
	ja	L(tail)
	vmovdqu	(%rsi,%rcx), %ymm0
	vmovaps	%ymm0, (%rsp)		/* faults unless rsp is 32-aligned */
	vmovdqu	(%rsp), %ymm1
	vmovdqu	%ymm1, (%rdi,%rcx)
	movq	%r8, %rcx
	jmp	L(block)
L(tail):
	cmpq	%rdx, %rcx
	je	L(done)
	movzbl	(%rsi,%rcx), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	jmp	L(tail)
L(done):
	vzeroupper
	FRAME_LEAVE
	ret
END(STACK_COPY)
