/* copy_from_user as a byte loop (ldtrb, listed) whose fixup zeroes the
 * byte it could not fetch: one byte written past the ones the count says
 * were copied (write-past-count; zero-padding is copy_from_user's C
 * wrapper's job, and it pads all of the rest). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_from_user_pads_one)
	add	x3, x0, x2
	cbz	x2, L(done)
L(loop):
	MG_USER(L(fault), ldtrb w4, [x1])
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
L(fault):
	strb	wzr, [x0]
	sub	x0, x3, x0
	ret
END(mg_aarch64_bad_copy_from_user_pads_one)
