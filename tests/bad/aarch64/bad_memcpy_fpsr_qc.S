/* Tells a tail of fewer than 16 bytes from a block by subtracting 16 from
 * what is left with a saturating subtract (uqsub) and reading FPSR.QC, the
 * cumulative saturation flag, without clearing it first. AAPCS64 (6.1.2)
 * lets FPSR's flags have any value on entry: with QC already set, every
 * length looks like a tail, and only its length mod 16 bytes are copied.
 * Its twin memcpy_fpsr_qc includes this file and clears FPSR first. */
#include "asmdefs.h"
#ifndef QC_COPY /* the twin defines its own */
#define QC_COPY mg_aarch64_bad_memcpy_fpsr_qc
#endif
	.text
ENTRY(QC_COPY)
#ifdef CLEAR_FPSR
	msr	fpsr, xzr		/* the caller's flags are not ours to keep */
#endif
	mov	x3, x0
	mov	x5, #16
	fmov	d1, x5
L(block):
	fmov	d0, x2
	uqsub	d2, d0, d1		/* saturates (sets QC) when fewer than 16 are left */
	mrs	x5, fpsr
	tbnz	x5, #27, L(tail)	/* BUG without CLEAR_FPSR: QC may be set on entry */
	ldr	q0, [x1], #16
	str	q0, [x3], #16
	sub	x2, x2, #16
	b	L(block)
L(tail):
	tbz	x2, #3, 1f
	ldr	x5, [x1], #8
	str	x5, [x3], #8
1:	tbz	x2, #2, 2f
	ldr	w5, [x1], #4
	str	w5, [x3], #4
2:	tbz	x2, #1, 3f
	ldrh	w5, [x1], #2
	strh	w5, [x3], #2
3:	tbz	x2, #0, 4f
	ldrb	w5, [x1]
	strb	w5, [x3]
4:	ret
END(QC_COPY)
