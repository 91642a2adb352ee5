/* An i386 copy_page(to, from) written as a kernel file (gated with
 * --kernel, through memgate's shim), its arguments on the stack (cdecl),
 * one word short: its last 4 bytes are not copied (tests/run.d/repro.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>

SYM_FUNC_START(copy_page_short_i386)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	$PAGE_SIZE/4 - 1, %ecx	/* BUG: one word short */
	rep movsl
	popl	%edi
	popl	%esi
	RET
SYM_FUNC_END(copy_page_short_i386)
