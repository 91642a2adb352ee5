/* Turns on flush-to-zero (FPCR.FZ, bit 24) for a vector copy loop and
 * leaves it on: every later float calculation of the caller changes. */
#include "asmdefs.h"
#define FPCR_FZ	(1 << 24)

	.text
ENTRY(mg_aarch64_bad_memcpy_changes_fpcr)
	mrs	x4, fpcr
	orr	x4, x4, #FPCR_FZ
	msr	fpcr, x4
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldr	b0, [x1, x3]
	str	b0, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
END(mg_aarch64_bad_memcpy_changes_fpcr)
