/* memcpy_avx512: an AVX-512 (F + BW) memcpy with a masked tail (not from the
 * kernel threads; the modern counterpart of #13-#15).
 *
 * void *mg_x86_64_memcpy_avx512(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * The whole 64-byte blocks (n & ~63 bytes) are copied with unaligned zmm
 * vmovdqu64, four blocks per step while 256 bytes fit, then one at a time.
 * The n % 64 bytes left are copied with one masked load and one masked
 * store under a k1 mask with exactly the low n % 64 bits set. Masked-out
 * bytes are neither read nor written, and AVX-512 suppresses faults on
 * masked-out elements, so the tail never touches a byte past the end even
 * when a guard page follows the buffer directly. Short copies (n < 64) are
 * just the masked tail.
 *
 * The mask is built with a plain shift, not BMI2 bzhi/shlx, so the routine
 * needs exactly the features the table declares: AVX512F (zmm, vmovdqu64)
 * and AVX512BW (64-bit byte masks: kmovq, vmovdqu8).
 *
 * k1 and zmm0-zmm3 are caller-saved in the System V ABI. vzeroupper at the
 * end clears the upper halves of the vector registers for the caller.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_avx512)
	movq	%rdi, %rax		/* return value */
	movq	%rdx, %rcx
	andq	$-64, %rcx		/* bytes in whole 64-byte blocks */
	jz	.Lv5_tail
	xorl	%r8d, %r8d		/* r8 = offset */
	cmpq	$256, %rcx
	jb	.Lv5_loop1		/* 64 <= rcx < 256: r8 = 0 < rcx */
	leaq	-256(%rcx), %r9		/* 4x steps while r8 + 256 <= rcx */
	.p2align 4
.Lv5_loop4:
	vmovdqu64 0x000(%rsi,%r8), %zmm0
	vmovdqu64 0x040(%rsi,%r8), %zmm1
	vmovdqu64 0x080(%rsi,%r8), %zmm2
	vmovdqu64 0x0c0(%rsi,%r8), %zmm3
	vmovdqu64 %zmm0, 0x000(%rdi,%r8)
	vmovdqu64 %zmm1, 0x040(%rdi,%r8)
	vmovdqu64 %zmm2, 0x080(%rdi,%r8)
	vmovdqu64 %zmm3, 0x0c0(%rdi,%r8)
	addq	$256, %r8
	cmpq	%r9, %r8
	jbe	.Lv5_loop4
	cmpq	%rcx, %r8
	jae	.Lv5_blocks_done
	.p2align 4
.Lv5_loop1:
	vmovdqu64 (%rsi,%r8), %zmm0
	vmovdqu64 %zmm0, (%rdi,%r8)
	addq	$64, %r8
	cmpq	%rcx, %r8
	jb	.Lv5_loop1
.Lv5_blocks_done:
	addq	%rcx, %rsi		/* step past the blocks */
	addq	%rcx, %rdi
.Lv5_tail:
	andl	$63, %edx		/* tail length t = n % 64 */
	jz	.Lv5_done		/* t == 0: no masked access at all */
	/* k1 = low t bits set = all-ones >> (64 - t). shr uses its count
	 * modulo 64, so cl = -t gives 64 - t for 1 <= t <= 63. */
	movl	%edx, %ecx
	negl	%ecx
	movq	$-1, %r8
	shrq	%cl, %r8
	kmovq	%r8, %k1
	vmovdqu8 (%rsi), %zmm0{%k1}{z}
	vmovdqu8 %zmm0, (%rdi){%k1}
.Lv5_done:
	vzeroupper
	ret
END(mg_x86_64_memcpy_avx512)
