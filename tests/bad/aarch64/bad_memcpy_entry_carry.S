/* Takes one byte off the count when the carry flag is set at entry, which
 * AAPCS64 leaves undefined (6.1.1: NZCV is undefined on entry). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_entry_carry)
	mov	x3, x0
	cset	x5, cs			/* BUG: reads the entry carry */
	sub	x2, x2, x5
	cbz	x2, 2f
1:	ldrb	w4, [x1], #1
	strb	w4, [x3], #1
	subs	x2, x2, #1
	b.ne	1b
2:	ret
END(mg_aarch64_bad_memcpy_entry_carry)
