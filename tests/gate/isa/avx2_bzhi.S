/* avx2_bzhi: a correct AVX2 memcpy whose tail length comes from bzhi, a
 * BMI2 instruction: glibc's BZ #29611 in small. Gated with --requires avx2
 * it is the ISA audit's undeclared-feature bmi2 (a CPU or VM with AVX2 and
 * no BMI2 dies of SIGILL at the bzhi); with --requires avx2,bmi2 it passes.
 * No other check can see it: this machine has BMI2, and qemu runs bzhi
 * whatever -cpu says (docs/isa-audit.md).
 *
 * void *avx2_bzhi(void *d, const void *s, size_t n): rdi, rsi, rdx; rax = d.
 */
	.text
	.globl	avx2_bzhi
	.type	avx2_bzhi, @function
avx2_bzhi:
	endbr64
	movq	%rdi, %rax
	movl	$5, %ecx
	bzhi	%rcx, %rdx, %r8		/* r8 = n mod 32: the bytes after the blocks */
	subq	%r8, %rdx		/* rdx = the bytes in whole 32-byte blocks */
	xorl	%r9d, %r9d
	testq	%rdx, %rdx
	jz	.Ltail
.Lblock:
	vmovdqu	(%rsi,%r9), %ymm0
	vmovdqu	%ymm0, (%rdi,%r9)
	addq	$32, %r9
	cmpq	%rdx, %r9
	jb	.Lblock
	vzeroupper
.Ltail:
	testq	%r8, %r8
	jz	.Ldone
.Lbyte:
	movzbl	(%rsi,%r9), %ecx
	movb	%cl, (%rdi,%r9)
	incq	%r9
	decq	%r8
	jnz	.Lbyte
.Ldone:
	ret
	.size	avx2_bzhi, .-avx2_bzhi
	.section .note.GNU-stack,"",@progbits
