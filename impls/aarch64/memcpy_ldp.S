/* memcpy_ldp: an AArch64 memcpy of general-register pairs.
 *
 * void *mg_aarch64_memcpy_ldp(void *dst, const void *src, size_t n)
 *	x0 = dst, x1 = src, x2 = n; returns dst in x0 (left untouched).
 *
 * 64-byte blocks of four ldp then four stp, then the tail of fewer than 64
 * bytes by the bits of n: 32 (as two 16-byte pairs), 16, 8, 4, then a byte
 * loop for the last 0-3. Unaligned accesses are fine on AArch64 for normal
 * memory, so nothing is aligned first.
 *
 * Every piece is loaded whole before it is stored, in increasing address
 * order, so a store can only overwrite source bytes already read when
 * dst < src: memmove_ldp relies on this for its forward copies.
 * n == 0 touches no memory. Uses only x3-x11.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_memcpy_ldp)
	mov	x3, x0			/* the destination cursor */
	cmp	x2, #64
	b.lo	.Lml_tail
.Lml_block:
	ldp	x4, x5, [x1]
	ldp	x6, x7, [x1, #16]
	ldp	x8, x9, [x1, #32]
	ldp	x10, x11, [x1, #48]
	add	x1, x1, #64
	sub	x2, x2, #64
	stp	x4, x5, [x3]
	stp	x6, x7, [x3, #16]
	stp	x8, x9, [x3, #32]
	stp	x10, x11, [x3, #48]
	add	x3, x3, #64
	cmp	x2, #64
	b.hs	.Lml_block
.Lml_tail:
	/* x2 < 64 from here: its bits say which pieces are left. */
	tbz	x2, #5, 1f
	ldp	x4, x5, [x1], #16
	stp	x4, x5, [x3], #16
	ldp	x4, x5, [x1], #16
	stp	x4, x5, [x3], #16
1:	tbz	x2, #4, 2f
	ldp	x4, x5, [x1], #16
	stp	x4, x5, [x3], #16
2:	tbz	x2, #3, 3f
	ldr	x4, [x1], #8
	str	x4, [x3], #8
3:	tbz	x2, #2, 4f
	ldr	w4, [x1], #4
	str	w4, [x3], #4
4:	ands	x2, x2, #3
	b.eq	6f
5:	ldrb	w4, [x1], #1
	strb	w4, [x3], #1
	subs	x2, x2, #1
	b.ne	5b
6:	ret
END(mg_aarch64_memcpy_ldp)
