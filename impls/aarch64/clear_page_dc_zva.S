/* clear_page_dc_zva: the arm64 kernel's clear_page, zeroing whole blocks
 * with dc zva.
 *
 * void mg_aarch64_clear_page_dc_zva(void *page)
 *	x0 = page; page aligned, 4096 bytes.
 *
 * DCZID_EL0 (always readable from EL0) says whether dc zva may be used
 * (DZP, bit 4, set: prohibited, and it would trap) and how much it zeroes
 * (BS, bits 3:0, log2 of a count of 4-byte words, at most 2 KiB). dc zva
 * zeroes the naturally aligned block that holds its address: a page is
 * aligned to every block size up to 4 KiB, so stepping by the block size
 * from the page's start zeroes exactly the page. Where dc zva is
 * prohibited, stp of the zero register does it instead.
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096
#define DCZID_DZP	4

	.text
ENTRY(mg_aarch64_clear_page_dc_zva)
	mrs	x1, dczid_el0
	tbnz	x1, #DCZID_DZP, .Lzva_prohibited
	and	x1, x1, #0xf
	mov	x2, #4
	lsl	x1, x2, x1		/* block size in bytes */
.Lzva_loop:
	dc	zva, x0
	add	x0, x0, x1
	tst	x0, #(PAGE_SIZE - 1)
	b.ne	.Lzva_loop
	ret

.Lzva_prohibited:
	stp	xzr, xzr, [x0]
	stp	xzr, xzr, [x0, #16]
	stp	xzr, xzr, [x0, #32]
	stp	xzr, xzr, [x0, #48]
	add	x0, x0, #64
	tst	x0, #(PAGE_SIZE - 1)
	b.ne	.Lzva_prohibited
	ret
END(mg_aarch64_clear_page_dc_zva)
