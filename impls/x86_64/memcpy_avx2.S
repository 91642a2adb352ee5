/* memcpy_avx2: a modern-style AVX2 memcpy (not from the kernel threads; the
 * "what a current tuned memcpy looks like" variant next to #13-#15).
 *
 * void *mg_x86_64_memcpy_avx2(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * n <= 32: no loop. Each size class loads the first and the last chunk of
 * its size and stores both; for lengths between two sizes the two chunks
 * overlap in the middle, which is harmless because both carry the same
 * source bytes. E.g. n = 11: bytes [0,8) and [3,11). So every length is
 * covered exactly, with nothing read or written outside [0, n):
 *	0: nothing; 1: one byte; 2-3: 2+2; 4-7: 4+4; 8-15: 8+8;
 *	16-31: 16+16 (xmm); 32: one ymm.
 * n > 32: the last 32 bytes are loaded up front and stored at the very end;
 * the body is copied in 32-byte unaligned vmovdqu steps (four at a time
 * while 128 bytes fit) over [0, n - 32). The final step may overlap the
 * last-32 store, again with identical bytes. All loop accesses stay below
 * n - 32 + 32 = n, so no byte outside the buffers is touched even with
 * guard pages flush against both ends.
 *
 * Every path that touched a vector register ends with vzeroupper, so the
 * caller's SSE code does not pay the AVX-SSE transition penalty.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_avx2)
	movq	%rdi, %rax		/* return value */
	cmpq	$32, %rdx
	ja	.Lv2_large
	/* n <= 32 from here, so 32-bit compares of edx are exact. */
	cmpl	$16, %edx
	jae	.Lv2_16_32
	cmpl	$8, %edx
	jae	.Lv2_8_15
	cmpl	$4, %edx
	jae	.Lv2_4_7
	cmpl	$2, %edx
	jae	.Lv2_2_3
	testl	%edx, %edx
	jz	.Lv2_ret		/* n == 0: touch nothing */
	movzbl	(%rsi), %ecx
	movb	%cl, (%rdi)
.Lv2_ret:
	ret

.Lv2_2_3:
	movzwl	(%rsi), %ecx
	movzwl	-2(%rsi,%rdx), %r8d
	movw	%cx, (%rdi)
	movw	%r8w, -2(%rdi,%rdx)
	ret

.Lv2_4_7:
	movl	(%rsi), %ecx
	movl	-4(%rsi,%rdx), %r8d
	movl	%ecx, (%rdi)
	movl	%r8d, -4(%rdi,%rdx)
	ret

.Lv2_8_15:
	movq	(%rsi), %rcx
	movq	-8(%rsi,%rdx), %r8
	movq	%rcx, (%rdi)
	movq	%r8, -8(%rdi,%rdx)
	ret

.Lv2_16_32:
	cmpl	$32, %edx
	je	.Lv2_32
	vmovdqu	(%rsi), %xmm0
	vmovdqu	-16(%rsi,%rdx), %xmm1
	vmovdqu	%xmm0, (%rdi)
	vmovdqu	%xmm1, -16(%rdi,%rdx)
	vzeroupper
	ret

.Lv2_32:
	vmovdqu	(%rsi), %ymm0
	vmovdqu	%ymm0, (%rdi)
	vzeroupper
	ret

	.p2align 4
.Lv2_large:
	/* n > 32. */
	vmovdqu	-32(%rsi,%rdx), %ymm4	/* last 32 bytes, stored last */
	leaq	-32(%rdx), %rcx		/* body: offsets [0, rcx), rcx >= 1 */
	xorl	%r8d, %r8d		/* r8 = offset */
	cmpq	$128, %rcx
	jb	.Lv2_loop1
	leaq	-128(%rcx), %r9		/* 4x steps while r8 + 128 <= rcx */
	.p2align 4
.Lv2_loop4:
	vmovdqu	0x00(%rsi,%r8), %ymm0
	vmovdqu	0x20(%rsi,%r8), %ymm1
	vmovdqu	0x40(%rsi,%r8), %ymm2
	vmovdqu	0x60(%rsi,%r8), %ymm3
	vmovdqu	%ymm0, 0x00(%rdi,%r8)
	vmovdqu	%ymm1, 0x20(%rdi,%r8)
	vmovdqu	%ymm2, 0x40(%rdi,%r8)
	vmovdqu	%ymm3, 0x60(%rdi,%r8)
	addq	$128, %r8
	cmpq	%r9, %r8
	jbe	.Lv2_loop4
	cmpq	%rcx, %r8
	jae	.Lv2_last
	.p2align 4
.Lv2_loop1:
	/* r8 < rcx = n - 32, so [r8, r8 + 32) ends below n. */
	vmovdqu	(%rsi,%r8), %ymm0
	vmovdqu	%ymm0, (%rdi,%r8)
	addq	$32, %r8
	cmpq	%rcx, %r8
	jb	.Lv2_loop1
.Lv2_last:
	vmovdqu	%ymm4, -32(%rdi,%rdx)
	vzeroupper
	ret
END(mg_x86_64_memcpy_avx2)
