/* Sets FPSCR's rounding mode (RMode, bits 23:22) to round toward zero
 * (0b11) with vmrs/vmsr, copies bytes and leaves it set: every later float
 * calculation of the caller rounds differently. AAPCS 5.1.2.1 (the FPSCR
 * paragraph): the rounding-mode bits may be changed only by the support
 * functions that set the global floating-point state (C11 7.6's
 * fesetround); every other call preserves them. It keeps the FPSCR it
 * found in s0 (caller-saved) but never puts it back; its twin
 * memcpy_restores_fpscr includes this file and does. Needs only VFP. */
#include "asmdefs.h"
#define FPSCR_RMODE_RZ (3 << 22)
#ifndef FPSCR_COPY /* the twin defines its own */
#define FPSCR_COPY mg_armhf_bad_memcpy_changes_fpscr
#define RESTORE_FPSCR		/* the bug: the caller's FPSCR stays in s0 */
#endif
	.text
	.arm
	.syntax unified
ENTRY(FPSCR_COPY)
	vmrs	r12, fpscr
	vmov	s0, r12			/* the caller's FPSCR */
	orr	r12, r12, #FPSCR_RMODE_RZ
	vmsr	fpscr, r12
	mov	r3, r0			/* r0 is the return value */
	cmp	r2, #0
	beq	2f
1:	ldrb	r12, [r1], #1
	strb	r12, [r3], #1
	subs	r2, r2, #1
	bne	1b
2:	RESTORE_FPSCR
	bx	lr
END(FPSCR_COPY)
