/* clear_page_rep_stosb: clear_page as one `rep stosb` of 4096 zero bytes.
 * Correct everywhere; fast only with ERMS (enhanced rep movsb/stosb), which
 * is why the table declares that feature.
 *
 * void mg_x86_64_clear_page_rep_stosb(void *page)
 *	rdi = page, page aligned, 4096 bytes.
 *
 * The ABI guarantees DF = 0 on entry, so the fill runs upwards.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_clear_page_rep_stosb)
	xorl	%eax, %eax
	movl	$4096, %ecx
	rep stosb
	ret
END(mg_x86_64_clear_page_rep_stosb)
