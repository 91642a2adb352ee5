/* The twin of bad_memcpy_stack_vmovaps (i386): the same vmovaps spill, to
 * a slot in a frame it aligns itself (a frame pointer, then esp rounded
 * down to 32), so it is right at every alignment the ABI allows at entry
 * (must pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_memcpy_stack_aligned)
	pushl	%ebp
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %ebp, 0
	movl	%esp, %ebp
	.cfi_def_cfa_register %ebp
	pushl	%esi
	.cfi_rel_offset %esi, -4
	pushl	%edi
	.cfi_rel_offset %edi, -8
	andl	$-32, %esp
	subl	$32, %esp
	movl	8(%ebp), %edi		/* d */
	movl	12(%ebp), %esi		/* s */
	movl	16(%ebp), %edx		/* n */
	xorl	%ecx, %ecx
L(block):
	leal	32(%ecx), %eax
	cmpl	%edx, %eax
	ja	L(tail)
	vmovdqu	(%esi,%ecx), %ymm0
	vmovaps	%ymm0, (%esp)		/* 32-aligned: the frame says so */
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
	movl	-8(%ebp), %edi
	.cfi_restore %edi
	movl	-4(%ebp), %esi
	.cfi_restore %esi
	movl	%ebp, %esp
	popl	%ebp
	.cfi_def_cfa %esp, 4
	.cfi_restore %ebp
	ret
END(mg_i386_memcpy_stack_aligned)
