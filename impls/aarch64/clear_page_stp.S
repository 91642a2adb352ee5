/* clear_page_stp: the plain arm64 clear_page, no special instructions.
 *
 * void mg_aarch64_clear_page_stp(void *page)
 *	x0 = page; page aligned, 4096 bytes.
 *
 * Four stp of the zero register per 64 bytes; the loop ends when the
 * pointer reaches the next page boundary, so no counter is needed.
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096

	.text
ENTRY(mg_aarch64_clear_page_stp)
	stp	xzr, xzr, [x0]
	stp	xzr, xzr, [x0, #16]
	stp	xzr, xzr, [x0, #32]
	stp	xzr, xzr, [x0, #48]
	add	x0, x0, #64
	tst	x0, #(PAGE_SIZE - 1)
	b.ne	mg_aarch64_clear_page_stp
	ret
END(mg_aarch64_clear_page_stp)
