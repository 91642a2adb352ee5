/* copy_to_user (a byte loop, sttrb listed) that first reads the kernel
 * source's byte at from + n, one past its end: the kernel buffer faults
 * where it sits at its guard page (kernel-fault). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_to_user_reads_past_src)
	ldrb	w4, [x1, x2]		/* the bug */
	add	x3, x0, x2
	cbz	x2, L(done)
L(loop):
	ldrb	w4, [x1], #1
	MG_USER(L(done), sttrb w4, [x0])
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_bad_copy_to_user_reads_past_src)
