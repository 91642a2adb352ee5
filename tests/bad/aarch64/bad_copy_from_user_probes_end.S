/* copy_from_user that first reads the user buffer's last byte and, if that
 * faults, gives up and returns n: nothing copied although the bytes before
 * the fault could have been (nothing-copied). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_from_user_probes_end)
	add	x3, x0, x2
	cbz	x2, L(done)
	add	x5, x1, x2
	MG_USER(L(gave_up), ldtrb w4, [x5, #-1])
L(loop):
	MG_USER(L(done), ldtrb w4, [x1])
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
L(gave_up):
	mov	x0, x2
	ret
END(mg_aarch64_bad_copy_from_user_probes_end)
