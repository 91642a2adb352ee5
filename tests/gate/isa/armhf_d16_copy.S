/* armhf_d16_copy: a correct memcpy that moves 8-byte blocks through d16
 * (VFP only, no NEON: vldr/vstr want word-aligned addresses, so blocks
 * only where src and dst are, bytes otherwise). d16-d31 exist only on a
 * CPU with 32 double registers (VFPD32), which Debian's armhf baseline,
 * VFPv3-D16, lacks: without --requires vfpd32 (or neon, which brings
 * them) it is the ISA audit's undeclared-feature vfpd32. Thumb-2, so the
 * audit's Thumb decoding is tested too.
 *
 * void *armhf_d16_copy(void *d, const void *s, size_t n): r0, r1, r2. */
	.syntax unified
	.thumb
	.fpu	vfpv3
	.text
	.globl	armhf_d16_copy
	.type	armhf_d16_copy, %function
armhf_d16_copy:
	mov	r3, r0
	orr	r12, r0, r1
	tst	r12, #3
	bne	2f
1:	cmp	r2, #8
	blo	2f
	vldr	d16, [r1]
	vstr	d16, [r3]
	adds	r1, r1, #8
	adds	r3, r3, #8
	subs	r2, r2, #8
	b	1b
2:	cbz	r2, 3f
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	b	2b
3:	bx	lr
	.size	armhf_d16_copy, .-armhf_d16_copy
	.section .note.GNU-stack,"",%progbits
