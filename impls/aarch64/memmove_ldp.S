/* memmove_ldp: an AArch64 memmove of general-register pairs.
 *
 * void *mg_aarch64_memmove_ldp(void *dst, const void *src, size_t n)
 *	x0 = dst, x1 = src, x2 = n; returns dst in x0 (left untouched).
 *
 * The direction test is one unsigned compare: dst - src >= n (as unsigned
 * 64-bit numbers) holds when dst is below src (the difference wraps to a
 * huge number) or at least n above it; in both cases a forward copy never
 * overwrites a source byte before reading it, so memcpy_ldp does it (see
 * there why its forward order is safe for dst < src). Otherwise dst lies
 * inside (src, src + n): copy backward from the ends, 64-byte blocks, then
 * the tail by the bits of n, each piece loaded whole before it is stored,
 * so every store lands on source bytes already read.
 * n == 0 touches no memory (dst - src >= 0 always: the forward path).
 */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_memmove_ldp)
	sub	x3, x0, x1
	cmp	x3, x2
	b.hs	mg_aarch64_memcpy_ldp	/* unsigned dst - src >= n */

	add	x1, x1, x2		/* the end of the source */
	add	x3, x0, x2		/* the end of the destination */
	cmp	x2, #64
	b.lo	.Lmm_tail
.Lmm_block:
	ldp	x4, x5, [x1, #-16]
	ldp	x6, x7, [x1, #-32]
	ldp	x8, x9, [x1, #-48]
	ldp	x10, x11, [x1, #-64]
	sub	x1, x1, #64
	sub	x2, x2, #64
	stp	x4, x5, [x3, #-16]
	stp	x6, x7, [x3, #-32]
	stp	x8, x9, [x3, #-48]
	stp	x10, x11, [x3, #-64]
	sub	x3, x3, #64
	cmp	x2, #64
	b.hs	.Lmm_block
.Lmm_tail:
	/* x2 < 64: the pieces left, from the top down. */
	tbz	x2, #5, 1f
	ldp	x4, x5, [x1, #-16]!
	stp	x4, x5, [x3, #-16]!
	ldp	x4, x5, [x1, #-16]!
	stp	x4, x5, [x3, #-16]!
1:	tbz	x2, #4, 2f
	ldp	x4, x5, [x1, #-16]!
	stp	x4, x5, [x3, #-16]!
2:	tbz	x2, #3, 3f
	ldr	x4, [x1, #-8]!
	str	x4, [x3, #-8]!
3:	tbz	x2, #2, 4f
	ldr	w4, [x1, #-4]!
	str	w4, [x3, #-4]!
4:	ands	x2, x2, #3
	b.eq	6f
5:	ldrb	w4, [x1, #-1]!
	strb	w4, [x3, #-1]!
	subs	x2, x2, #1
	b.ne	5b
6:	ret
END(mg_aarch64_memmove_ldp)
