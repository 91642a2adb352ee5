/* An arm64 raw_copy_from_user written as a kernel file (gated with
 * --kernel, through memgate's shim: user_ldst and its exception-table
 * entry as 6.1's asm-uaccess.h has them), whose fixup returns one byte
 * fewer than it did not copy (wrong-count, docs/usercopy.md;
 * tests/run.d/repro.sh). Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm-uaccess.h>

SYM_FUNC_START(copy_from_user_short_aarch64)
	add	x5, x0, x2		/* the end of to */
	cbz	x2, 9f
1:	user_ldst 8f, ldtrb, w3, x1, #1
	strb	w3, [x0], #1
	cmp	x0, x5
	b.ne	1b
9:	sub	x0, x5, x0
	ret
8:	sub	x0, x5, x0
	sub	x0, x0, #1		/* BUG: one byte short of the count */
	ret
SYM_FUNC_END(copy_from_user_short_aarch64)
