/* Copies in 32-byte blocks through ymm0 and spills each block to a stack
 * slot with vmovaps, which needs 32-byte alignment: it takes the slot at
 * esp - 60, aligned where (esp + 4) was a multiple of 32 at entry, as it
 * was where it was written. The ABI promises only 16 (psABI-32 2.2.2):
 * with (esp + 4) mod 32 = 16 at entry the spill raises a general-protection
 * fault. Its twin memcpy_stack_aligned includes this file with a frame it
 * aligns itself. */
#include "asmdefs.h"
#ifndef STACK_COPY /* the twin defines its own */
#define STACK_COPY mg_i386_bad_memcpy_stack_vmovaps
/* BUG: assumes this leaves esp 32-aligned */
#define FRAME_ENTER subl $52, %esp; .cfi_adjust_cfa_offset 52
#define FRAME_LEAVE addl $52, %esp; .cfi_adjust_cfa_offset -52
#endif
	.text
ENTRY(STACK_COPY)
	pushl	%esi
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %esi, 0
	pushl	%edi
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %edi, 0
	movl	12(%esp), %edi		/* d */
	movl	16(%esp), %esi		/* s */
	movl	20(%esp), %edx		/* n */
	FRAME_ENTER
	xorl	%ecx, %ecx
L(block):
	leal	32(%ecx), %eax
	cmpl	%edx, %eax
	ja	L(tail)
	vmovdqu	(%esi,%ecx), %ymm0
	vmovaps	%ymm0, (%esp)		/* faults unless esp is 32-aligned */
	vmovdqu	(%esp), %ymm1
	vmovdqu	%ymm1, (%edi,%ecx)
	movl	%eax, %ecx
	jmp	L(block)
L(tail):
	cmpl	%edx, %ecx
	je	L(done)
	movzbl	(%esi,%ecx), %eax
	movb	%al, (%edi,%ecx)
	incl	%ecx
	jmp	L(tail)
L(done):
	vzeroupper
	movl	%edi, %eax
	FRAME_LEAVE
	popl	%edi
	.cfi_adjust_cfa_offset -4
	.cfi_restore %edi
	popl	%esi
	.cfi_adjust_cfa_offset -4
	.cfi_restore %esi
	ret
END(STACK_COPY)
