/* copy_page_pipelined: VARIANTS.md #18, the maintainer's all-rounder from
 * the 2015 thread "ARM64: Improve copy_page for 128 cache line sizes".
 *
 * void mg_aarch64_copy_page_pipelined(void *to, void *from)
 *	x0 = to, x1 = from; both page aligned, 4096 bytes.
 *
 * Software pipelined, 128 bytes in flight: the first 128 bytes are loaded
 * into x2-x17 up front; then each pass, pair by pair, stores the pair
 * loaded by the previous pass (stnp) and loads the same pair of the next
 * 128 bytes (ldp) into the registers just freed, so every load has a whole
 * pass to arrive before its store. 31 passes store bytes 0-3967 and load
 * up to 4095; a last block of stores drains the registers.
 *
 * With x2-x17 holding data, the pass counter lives in x18. That is the
 * platform register: Linux user space may use it, but kernel code must not,
 * because it holds the shadow call stack pointer there (which is why the
 * kernel later stopped using it). As a kernel page routine, this variant
 * is expected to fail the ABI check on x18.
 */
#include "asmdefs.h"
#define PAGE_SIZE	4096
#define BLOCK		128

	.text
ENTRY(mg_aarch64_copy_page_pipelined)
	ldp	x2, x3, [x1]
	ldp	x4, x5, [x1, #16]
	ldp	x6, x7, [x1, #32]
	ldp	x8, x9, [x1, #48]
	ldp	x10, x11, [x1, #64]
	ldp	x12, x13, [x1, #80]
	ldp	x14, x15, [x1, #96]
	ldp	x16, x17, [x1, #112]
	mov	x18, #(PAGE_SIZE - BLOCK)	/* bytes still to load */
	add	x1, x1, #BLOCK
.Lcpp_loop:
	subs	x18, x18, #BLOCK		/* flags for b.gt; nothing below sets them */
	stnp	x2, x3, [x0]
	ldp	x2, x3, [x1]
	stnp	x4, x5, [x0, #16]
	ldp	x4, x5, [x1, #16]
	stnp	x6, x7, [x0, #32]
	ldp	x6, x7, [x1, #32]
	stnp	x8, x9, [x0, #48]
	ldp	x8, x9, [x1, #48]
	stnp	x10, x11, [x0, #64]
	ldp	x10, x11, [x1, #64]
	stnp	x12, x13, [x0, #80]
	ldp	x12, x13, [x1, #80]
	stnp	x14, x15, [x0, #96]
	ldp	x14, x15, [x1, #96]
	stnp	x16, x17, [x0, #112]
	ldp	x16, x17, [x1, #112]
	add	x0, x0, #BLOCK
	add	x1, x1, #BLOCK
	b.gt	.Lcpp_loop

	stnp	x2, x3, [x0]
	stnp	x4, x5, [x0, #16]
	stnp	x6, x7, [x0, #32]
	stnp	x8, x9, [x0, #48]
	stnp	x10, x11, [x0, #64]
	stnp	x12, x13, [x0, #80]
	stnp	x14, x15, [x0, #96]
	stnp	x16, x17, [x0, #112]
	ret
END(mg_aarch64_copy_page_pipelined)
