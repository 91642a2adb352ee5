/* clear_page_rep_stosl: VARIANTS.md #4 (2004 thread "Use x86 SSE
 * instructions for clear_page, copy_page"): the incumbent, one `rep stosl`
 * of 1024 zero dwords.
 *
 * void mg_i386_clear_page_rep_stosl(void *page)
 *	4(%esp) = page, page aligned, 4096 bytes.
 *
 * rep stosl writes eax to (edi) and steps edi, so edi, which the caller
 * owns, is saved around it. The cld is the posting's: the ABI already
 * guarantees DF = 0 on entry.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_clear_page_rep_stosl)
	pushl	%edi
	movl	8(%esp), %edi		/* page */
	xorl	%eax, %eax
	movl	$(4096 / 4), %ecx
	cld
	rep stosl
	popl	%edi
	ret
END(mg_i386_clear_page_rep_stosl)
