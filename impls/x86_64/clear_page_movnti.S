/* clear_page_movnti: clear_page with non-temporal stores, the x86-64 integer
 * counterpart of VARIANTS.md #6 (movntps there, movnti here; SSE2).
 *
 * void mg_x86_64_clear_page_movnti(void *page)
 *	rdi = page, page aligned, 4096 bytes.
 *
 * A zeroed register is written with `movnti` (8-byte non-temporal store that
 * bypasses the caches via write-combining), 8 stores per 64-byte line, 64
 * lines. Non-temporal stores are weakly ordered: without the final `sfence`
 * they could become visible after later ordinary stores (e.g. the store that
 * publishes the page to another thread), so the sfence is part of the
 * routine's correctness, not an optimisation.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_clear_page_movnti)
	xorl	%eax, %eax
	movl	$(4096 / 64), %ecx
	.p2align 4
.Lcpnt_loop:
	movnti	%rax, 0x00(%rdi)
	movnti	%rax, 0x08(%rdi)
	movnti	%rax, 0x10(%rdi)
	movnti	%rax, 0x18(%rdi)
	movnti	%rax, 0x20(%rdi)
	movnti	%rax, 0x28(%rdi)
	movnti	%rax, 0x30(%rdi)
	movnti	%rax, 0x38(%rdi)
	leaq	64(%rdi), %rdi
	decl	%ecx
	jnz	.Lcpnt_loop
	sfence
	ret
END(mg_x86_64_clear_page_movnti)
