/* copy_to_user as a byte loop whose user store is a plain strb, listed in
 * the exception table: under the kernel's PAN a privileged store to user
 * memory faults (only the unprivileged ldtr/sttr family, or an access
 * inside the uaccess brackets, reaches it), so on a PAN CPU every copy
 * ends in -EFAULT. At EL0, under qemu-user, strb and sttrb do the same, so
 * it passes every run-time check; only the gate's uaccess check sees it
 * (pan-privileged-access, docs/contract.md AK6). Its twin is
 * impls/aarch64/copy_to_user_bytes.S (sttrb). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_to_user_plain_store)
	add	x3, x0, x2		/* the end of to */
	cbz	x2, L(done)
L(loop):
	ldrb	w4, [x1], #1
	MG_USER(L(done), strb w4, [x0])
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_bad_copy_to_user_plain_store)
