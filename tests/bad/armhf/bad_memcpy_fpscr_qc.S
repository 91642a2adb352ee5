/* Tells a tail of fewer than 16 bytes from a block by subtracting 16 from
 * what is left with a saturating subtract (vqsub) and reading FPSCR.QC,
 * the cumulative saturation flag, without clearing it first. FPSCR's
 * cumulative flags may have any value on entry (AAPCS 5.1.2.1: they are
 * not preserved; C11 7.6): with QC already set, every length looks like a
 * tail, and only its length mod 16 bytes are copied. Its twin
 * memcpy_fpscr_qc includes this file and clears QC first. Needs NEON. */
#include "asmdefs.h"
#ifndef QC_COPY /* the twin defines its own */
#define QC_COPY mg_armhf_bad_memcpy_fpscr_qc
#endif
#define FPSCR_QC (1 << 27)
	.text
	.arm
	.syntax unified
	.fpu	neon
ENTRY(QC_COPY)
#ifdef CLEAR_QC
	vmrs	r12, fpscr		/* the caller's flags are not ours to keep */
	bic	r12, r12, #FPSCR_QC
	vmsr	fpscr, r12
#endif
	mov	r3, r0			/* r0 is the return value */
	mov	r12, #16
	vmov	d1, r12, r12		/* 16 in each 32-bit lane */
1:	vmov	d0, r2, r2
	vqsub.u32 d2, d0, d1		/* saturates (sets QC) when fewer than 16 are left */
	vmrs	r12, fpscr
	tst	r12, #FPSCR_QC		/* BUG without CLEAR_QC: QC may be set on entry */
	bne	2f
	vld1.8	{d4-d5}, [r1]!
	vst1.8	{d4-d5}, [r3]!
	sub	r2, r2, #16
	b	1b
2:	and	r2, r2, #15		/* the tail: what is left mod 16 */
3:	cmp	r2, #0
	beq	4f
	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	sub	r2, r2, #1
	b	3b
4:	bx	lr
END(QC_COPY)
