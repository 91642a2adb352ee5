/* Copies byte by byte through d16 (VFP's vmov.32 to and from a scalar,
 * no NEON), without requiring vfpd32: d16-d31 exist only on a CPU with
 * 32 double registers, and Debian's armhf baseline, VFPv3-D16, has 16.
 * Right wherever d16 exists (the Cortex-A15 and A9 models); under the
 * VFPv3-D16 model (-cpu cortex-a9,neon=off,vfp-d32=off) the first vmov
 * is undefined: a crash, SIGILL, that names vfpd32. The CPU model is the
 * check: the variant table's expectation is that model's. */
#include "asmdefs.h"
	.text
	.arm
	.syntax unified
	.fpu	vfpv3
ENTRY(mg_armhf_bad_memcpy_undeclared_d16)
	mov	r12, r0			/* r0 is the return value */
1:	cmp	r2, #0
	beq	2f
	ldrb	r3, [r1], #1
	vmov.32	d16[0], r3
	vmov.32	r3, d16[0]
	strb	r3, [r12], #1
	sub	r2, r2, #1
	b	1b
2:	bx	lr
END(mg_armhf_bad_memcpy_undeclared_d16)
