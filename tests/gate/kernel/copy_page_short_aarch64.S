/* An arm64 copy_page written as a kernel file (gated with --kernel,
 * through memgate's shim), 16 bytes short: its last pair of registers is
 * not copied (tests/run.d/repro.sh). Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/assembler.h>

SYM_FUNC_START(copy_page_short_aarch64)
	mov	x2, #(PAGE_SIZE - 16)	/* BUG: 16 bytes short */
1:	ldp	x3, x4, [x1], #16
	stp	x3, x4, [x0], #16
	subs	x2, x2, #16
	b.ne	1b
	ret
SYM_FUNC_END(copy_page_short_aarch64)
