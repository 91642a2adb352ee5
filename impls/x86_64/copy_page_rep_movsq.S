/* copy_page_rep_movsq: VARIANTS.md #3 (2012 copy_page thread): one
 * `rep movsq` of 512 quadwords. In the thread this was the fastest on AMD.
 *
 * void mg_x86_64_copy_page_rep_movsq(void *to, void *from)
 *	rdi = to, rsi = from; both page aligned, 4096 bytes.
 *
 * rep movsq already takes its destination in rdi and source in rsi, exactly
 * where the ABI delivers the arguments. The ABI guarantees DF = 0 on entry,
 * so the copy runs upwards without a cld.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_copy_page_rep_movsq)
	movl	$(4096 / 8), %ecx
	rep movsq
	ret
END(mg_x86_64_copy_page_rep_movsq)
