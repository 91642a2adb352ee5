/* copy_page_rep_movsl: VARIANTS.md #5 (2004 thread "Use x86 SSE
 * instructions for clear_page, copy_page"): the incumbent, one `rep movsl`
 * of 1024 dwords.
 *
 * void mg_i386_copy_page_rep_movsl(void *to, void *from)
 *	4(%esp) = to, 8(%esp) = from; both page aligned, 4096 bytes.
 *
 * rep movsl copies (esi) to (edi): both are the caller's, so both are saved
 * around it. The cld is the posting's (DF = 0 on entry anyway).
 */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_copy_page_rep_movsl)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi		/* to */
	movl	16(%esp), %esi		/* from */
	movl	$(4096 / 4), %ecx
	cld
	rep movsl
	popl	%edi
	popl	%esi
	ret
END(mg_i386_copy_page_rep_movsl)
