/* Enters streaming mode with ZA on (smstart), as an SME copy loop would,
 * copies byte by byte, and returns without smstop: a non-streaming
 * function with a private ZA interface must return with PSTATE.SM and
 * PSTATE.ZA as they were on entry (AAPCS64 6.2); its caller's next
 * Advanced SIMD instruction may fault in streaming mode, and its ZA
 * contents are lost. It keeps d8-d15, which entering and leaving
 * streaming mode zero with the rest of the vector registers. Its twin memcpy_smstart_smstop includes this file
 * and ends with smstop. (Encoded by hand: smstart is MSR SVCRSMZA, #1,
 * smstop MSR SVCRSMZA, #0.) */
#include "asmdefs.h"
#ifndef SME_COPY /* the twin defines its own */
#define SME_COPY mg_aarch64_bad_memcpy_leaves_streaming
#endif
	.text
ENTRY(SME_COPY)
	stp	d8, d9, [sp, #-64]!
	.cfi_adjust_cfa_offset 64
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]
	.inst	0xd503477f		/* smstart */
	mov	x3, #0
1:	cmp	x3, x2
	b.hs	2f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	1b
2:
#ifdef SMSTOP
	.inst	0xd503467f		/* smstop */
#endif
	ldp	d14, d15, [sp, #48]
	ldp	d12, d13, [sp, #32]
	ldp	d10, d11, [sp, #16]
	ldp	d8, d9, [sp], #64
	.cfi_adjust_cfa_offset -64
	ret				/* BUG without SMSTOP: still streaming, ZA on */
END(SME_COPY)
