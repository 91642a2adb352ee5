/* clear_page_sse_nt: VARIANTS.md #6 (2004 thread "Use x86 SSE instructions
 * for clear_page, copy_page"): zero xmm0, then 64 blocks of four 16-byte
 * non-temporal stores (movntps), then sfence. Needs SSE.
 *
 * void mg_i386_clear_page_sse_nt(void *page)
 *	4(%esp) = page, page aligned (movntps needs 16), 4096 bytes.
 *
 * The kernel version saved xmm0 and CR0 around the loop; in user space the
 * xmm registers are all caller-saved, so neither is needed. movntps writes
 * through write-combining buffers, weakly ordered: the sfence makes the
 * zeroes visible before any later ordinary store (the one that hands the
 * page on), so it is part of correctness.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_clear_page_sse_nt)
	movl	4(%esp), %eax		/* page */
	xorps	%xmm0, %xmm0
	movl	$(4096 / 64), %ecx
	.p2align 4
.Lclear_block:
	movntps	%xmm0, 0(%eax)
	movntps	%xmm0, 16(%eax)
	movntps	%xmm0, 32(%eax)
	movntps	%xmm0, 48(%eax)
	addl	$64, %eax
	decl	%ecx
	jnz	.Lclear_block
	sfence
	ret
END(mg_i386_clear_page_sse_nt)
