/* unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
 *	x0 = to, x1 = from, x2 = n; returns the bytes not copied in x0.
 * A byte loop: each user load is an unprivileged ldtrb, listed in the
 * exception table (UACCESS_ERR_ZERO, as the kernel's USER()); the fixup
 * returns end - to, which at a fault is exactly the bytes from the
 * faulting one on. Uses x3, x4. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_copy_from_user_bytes)
	add	x3, x0, x2		/* the end of to */
	cbz	x2, L(done)
L(loop):
	MG_USER(L(done), ldtrb w4, [x1])
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_copy_from_user_bytes)
