/* clear_page_rep_stosq: clear_page as one `rep stosq` of 512 zero quadwords
 * (the x86-64 counterpart of VARIANTS.md #4's `rep stosl`).
 *
 * void mg_x86_64_clear_page_rep_stosq(void *page)
 *	rdi = page, page aligned, 4096 bytes.
 *
 * rep stosq stores rax to rdi, rcx times; the ABI guarantees DF = 0 on entry.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_clear_page_rep_stosq)
	xorl	%eax, %eax		/* also clears the upper half of rax */
	movl	$(4096 / 8), %ecx
	rep stosq
	ret
END(mg_x86_64_clear_page_rep_stosq)
