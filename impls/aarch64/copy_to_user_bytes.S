/* unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
 *	x0 = to, x1 = from, x2 = n; returns the bytes not copied in x0.
 * A byte loop: each user store is an unprivileged sttrb, listed in the
 * exception table (UACCESS_ERR_ZERO, as the kernel's USER()); the fixup
 * returns end - to, which at a fault is exactly the bytes from the
 * faulting one on. Uses x3, x4. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_copy_to_user_bytes)
	add	x3, x0, x2		/* the end of to */
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
END(mg_aarch64_copy_to_user_bytes)
