/* Copies in 32-byte blocks through ymm0 and spills each block to a stack
 * slot with vmovaps, which needs 32-byte alignment: it takes the slot at
 * esp - 60, aligned where (esp + 4) was a multiple of 32 at entry, as it
 * was where it was written. The ABI promises only 16 (psABI-32 2.2.2):
 * with (esp + 4) mod 32 = 16 at entry the spill raises a general-protection
 * fault. Its twin memcpy_stack_aligned aligns its own frame. */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_stack_vmovaps)
	subl	$60, %esp		/* BUG: assumes this leaves esp 32-aligned */
	.cfi_adjust_cfa_offset 60
	pushl	%esi
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %esi, 0
	pushl	%edi
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %edi, 0
	movl	72(%esp), %edi		/* d */
	movl	76(%esp), %esi		/* s */
	movl	80(%esp), %edx		/* n */
	xorl	%ecx, %ecx
L(block):
	leal	32(%ecx), %eax
	cmpl	%edx, %eax
	ja	L(tail)
	vmovdqu	(%esi,%ecx), %ymm0
	vmovaps	%ymm0, 8(%esp)		/* faults unless esp + 8 is 32-aligned */
	vmovdqu	8(%esp), %ymm1
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
	popl	%edi
	.cfi_adjust_cfa_offset -4
	.cfi_restore %edi
	popl	%esi
	.cfi_adjust_cfa_offset -4
	.cfi_restore %esi
	addl	$60, %esp
	.cfi_adjust_cfa_offset -60
	ret
END(mg_i386_bad_memcpy_stack_vmovaps)
