/* copy_from_user as a byte loop (ldtrb, listed) whose fixup returns one
 * byte too few left: it claims the faulting byte as copied (wrong-count). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_from_user_count_off_by_one)
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
	sub	x0, x3, x0
	sub	x0, x0, #1
	ret
END(mg_aarch64_bad_copy_from_user_count_off_by_one)
