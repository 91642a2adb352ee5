/* copy_page_orig: VARIANTS.md #16, the arm64 copy_page before the 2015
 * thread "ARM64: Improve copy_page for 128 cache line sizes".
 *
 * void mg_aarch64_copy_page_orig(void *to, void *from)
 *	x0 = to, x1 = from; both page aligned, 4096 bytes.
 *
 * Written for 64-byte cache lines: each pass loads one line into x2-x9
 * with four ldp, asks for the next line (prfm pldl1strm: read once, do not
 * keep), and writes the line with four non-temporal stnp, since a copied
 * page is rarely read again soon by this CPU. The loop ends when the source
 * pointer reaches the next page boundary, so no counter is needed. The last
 * prefetch aims one line past the source page; a prefetch never faults.
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096

	.text
ENTRY(mg_aarch64_copy_page_orig)
	prfm	pldl1strm, [x1, #64]
.Lcpo_loop:
	ldp	x2, x3, [x1]
	ldp	x4, x5, [x1, #16]
	ldp	x6, x7, [x1, #32]
	ldp	x8, x9, [x1, #48]
	add	x1, x1, #64
	prfm	pldl1strm, [x1, #64]
	stnp	x2, x3, [x0]
	stnp	x4, x5, [x0, #16]
	stnp	x6, x7, [x0, #32]
	stnp	x8, x9, [x0, #48]
	add	x0, x0, #64
	tst	x1, #(PAGE_SIZE - 1)
	b.ne	.Lcpo_loop
	ret
END(mg_aarch64_copy_page_orig)
