/* mg_x86_64_forward_copy: the project's own strictly forward copy.
 *
 * Not a variant on its own: it is the "forward memcpy" that the memmove
 * variants (#8-#12 in VARIANTS.md) call when they decide to copy upwards.
 * VARIANTS.md requires that path to be our own strictly forward copy,
 * because the C library's memcpy makes no promise about overlapping buffers.
 *
 * void *mg_x86_64_forward_copy(void *dst, const void *src, size_t n)
 *	rdi = dst, rsi = src, rdx = n; returns dst in rax.
 *
 * Quadwords in increasing address order, then the remaining bytes in
 * increasing address order. Each quadword is loaded completely before it is
 * stored, and the store at dst+i..dst+i+7 can only overwrite source bytes
 * below src+i+8 when dst < src, i.e. bytes already read. So the copy is
 * correct for dst < src even when the buffers overlap (any distance), and
 * for disjoint buffers. It is NOT correct for overlapping dst > src; callers
 * must not use it for that case.
 *
 * n == 0 touches no memory. Uses only rax, rcx, r8, r9 (caller-saved); never
 * touches the direction flag (string instructions are not used at all).
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_forward_copy)
	movq	%rdi, %rax		/* return value */
	xorl	%ecx, %ecx		/* rcx = offset of the next byte to copy */
	cmpq	$8, %rdx
	jb	.Lfc_bytes
	/* Quadword loop: runs while offset + 8 <= n, i.e. offset <= n - 8. */
	leaq	-8(%rdx), %r8		/* r8 = last offset where a quadword fits */
	.p2align 4
.Lfc_quads:
	movq	(%rsi,%rcx), %r9
	movq	%r9, (%rdi,%rcx)
	addq	$8, %rcx
	cmpq	%r8, %rcx
	jbe	.Lfc_quads
.Lfc_bytes:
	cmpq	%rdx, %rcx
	jae	.Lfc_done
	.p2align 4
.Lfc_byte_loop:
	movzbl	(%rsi,%rcx), %r8d
	movb	%r8b, (%rdi,%rcx)
	incq	%rcx
	cmpq	%rdx, %rcx
	jb	.Lfc_byte_loop
.Lfc_done:
	ret
END(mg_x86_64_forward_copy)
