/* Uses the callee-saved x19 as a scratch register without saving it: the
 * copy is right, the caller's x19 is gone. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_clobbers_x19)
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldrb	w19, [x1, x3]
	strb	w19, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
END(mg_aarch64_bad_memcpy_clobbers_x19)
