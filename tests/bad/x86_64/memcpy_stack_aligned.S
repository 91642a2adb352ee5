/* The twin of bad_memcpy_stack_vmovaps: the same vmovaps spill, to a slot
 * in a frame it aligns itself (a frame pointer, then rsp rounded down to
 * 32), so it is right at every alignment the ABI allows at entry (must
 * pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_stack_aligned)
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-32, %rsp
	subq	$32, %rsp
	movq	%rdi, %rax
	xorl	%ecx, %ecx
L(block):
	leaq	32(%rcx), %r8
	cmpq	%rdx, %r8
	ja	L(tail)
	vmovdqu	(%rsi,%rcx), %ymm0
	vmovaps	%ymm0, (%rsp)		/* 32-aligned: the frame says so */
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
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
END(mg_x86_64_memcpy_stack_aligned)
