/* Correct, and must pass: parks each byte in the upper 64 bits of v8
 * (lane d[1]) and leaves it there. AAPCS64 makes a callee preserve only the
 * low 64 bits of v8-v15 (d8-d15), so this is allowed; the trampoline fills
 * all 128 bits with canaries, and must still not flag it. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_clobbers_v8_upper)
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldrb	w4, [x1, x3]
	mov	v8.d[1], x4		/* writes lane 1 only: d8 is untouched */
	mov	x5, v8.d[1]
	strb	w5, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
END(mg_aarch64_bad_memcpy_clobbers_v8_upper)
