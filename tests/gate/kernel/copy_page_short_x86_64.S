/* An x86-64 copy_page written as a kernel file (gated with --kernel,
 * through memgate's shim), one quadword short: its last 8 bytes are not
 * copied. The standalone reproducer of its finding is built from this
 * file with the shim on its build line (tests/run.d/repro.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>

SYM_FUNC_START(copy_page_short_x86_64)
	movl	$PAGE_SIZE/8 - 1, %ecx	/* BUG: one quadword short */
1:	movq	(%rsi), %rax
	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	decl	%ecx
	jnz	1b
	RET
SYM_FUNC_END(copy_page_short_x86_64)
