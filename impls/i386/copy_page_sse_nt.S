/* copy_page_sse_nt: VARIANTS.md #7 (2004 thread "Use x86 SSE instructions
 * for clear_page, copy_page"): 64 blocks of four aligned 16-byte loads
 * (movaps) and four non-temporal stores (movntps), then sfence. Needs SSE.
 *
 * void mg_i386_copy_page_sse_nt(void *to, void *from)
 *	4(%esp) = to, 8(%esp) = from; both page aligned (movaps and movntps
 *	need 16), 4096 bytes.
 *
 * Only caller-saved registers are used (eax, edx, ecx, xmm0-3), so nothing
 * is pushed. All four loads of a block come before its stores. The sfence
 * orders the non-temporal stores before any later ordinary store, as in
 * clear_page_sse_nt.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_copy_page_sse_nt)
	movl	4(%esp), %edx		/* to */
	movl	8(%esp), %eax		/* from */
	movl	$(4096 / 64), %ecx
	.p2align 4
.Lcopy_block:
	movaps	0(%eax), %xmm0
	movaps	16(%eax), %xmm1
	movaps	32(%eax), %xmm2
	movaps	48(%eax), %xmm3
	movntps	%xmm0, 0(%edx)
	movntps	%xmm1, 16(%edx)
	movntps	%xmm2, 32(%edx)
	movntps	%xmm3, 48(%edx)
	addl	$64, %eax
	addl	$64, %edx
	decl	%ecx
	jnz	.Lcopy_block
	sfence
	ret
END(mg_i386_copy_page_sse_nt)
