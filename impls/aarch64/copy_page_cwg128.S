/* copy_page_cwg128: VARIANTS.md #17, the ThunderX proposal in the 2015
 * thread "ARM64: Improve copy_page for 128 cache line sizes".
 *
 * void mg_aarch64_copy_page_cwg128(void *to, void *from)
 *	x0 = to, x1 = from; both page aligned, 4096 bytes.
 *
 * CTR_EL0 (readable from EL0 on Linux, which sets SCTLR_EL1.UCT) gives the
 * cache writeback granule in CWG, bits 27:24, as log2 of a count of 4-byte
 * words. On CPUs whose granule is 128 bytes or more (CWG >= 5), a 64-byte
 * pass writes half a line and the other half later, so the copy goes
 * 128 bytes at a time: two lines of prefetch ahead (128 and 256 bytes),
 * sixteen registers x2-x17 loaded, then written with stnp. CWG = 0 means
 * the register does not say, and the architecture then tells software to
 * assume the largest granule (2 KiB), as Linux's cache_line_size() does:
 * the 128-byte loop too. Otherwise it is #16's 64-byte loop, which the
 * proposal kept as it was: here, a jump to copy_page_orig.
 *
 * The 128-byte loop has an entry point of its own, _loop128, so the suite
 * checks both loops whatever this CPU's CTR_EL0 says: the 64-byte one is
 * copy_page_orig's row (qemu-user 7.2 reports CWG = 0, and would otherwise
 * never run it).
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096
#define CTR_CWG_SHIFT	24
#define CWG_128_BYTES	5	/* log2(128 / 4) */

	.text
ENTRY(mg_aarch64_copy_page_cwg128)
	mrs	x2, ctr_el0
	ubfx	x2, x2, #CTR_CWG_SHIFT, #4
	cbz	x2, mg_aarch64_copy_page_cwg128_loop128	/* not reported: assume 2 KiB */
	cmp	x2, #CWG_128_BYTES
	b.hs	mg_aarch64_copy_page_cwg128_loop128
	b	mg_aarch64_copy_page_orig
END(mg_aarch64_copy_page_cwg128)

ENTRY(mg_aarch64_copy_page_cwg128_loop128)
.Lcwg_loop128:
	prfm	pldl1strm, [x1, #128]
	prfm	pldl1strm, [x1, #256]
	ldp	x2, x3, [x1]
	ldp	x4, x5, [x1, #16]
	ldp	x6, x7, [x1, #32]
	ldp	x8, x9, [x1, #48]
	ldp	x10, x11, [x1, #64]
	ldp	x12, x13, [x1, #80]
	ldp	x14, x15, [x1, #96]
	ldp	x16, x17, [x1, #112]
	add	x1, x1, #128
	stnp	x2, x3, [x0]
	stnp	x4, x5, [x0, #16]
	stnp	x6, x7, [x0, #32]
	stnp	x8, x9, [x0, #48]
	stnp	x10, x11, [x0, #64]
	stnp	x12, x13, [x0, #80]
	stnp	x14, x15, [x0, #96]
	stnp	x16, x17, [x0, #112]
	add	x0, x0, #128
	tst	x1, #(PAGE_SIZE - 1)
	b.ne	.Lcwg_loop128
	ret
END(mg_aarch64_copy_page_cwg128_loop128)
