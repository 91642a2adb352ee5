/* unsigned long clear_user(void __user *to, unsigned long n)
 *	x0 = to, x1 = n; returns the bytes not cleared in x0.
 * A byte loop of unprivileged sttrb wzr, each listed in the exception
 * table (UACCESS_ERR_ZERO); the fixup returns end - to. Uses x3. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_clear_user_bytes)
	add	x3, x0, x1		/* the end of to */
	cbz	x1, L(done)
L(loop):
	MG_USER(L(done), sttrb wzr, [x0])
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_clear_user_bytes)
