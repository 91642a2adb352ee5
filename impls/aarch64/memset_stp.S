/* memset_stp: an AArch64 memset of SIMD register pairs.
 *
 * void *mg_aarch64_memset_stp(void *dst, int c, size_t n)
 *	x0 = dst, w1 = c, x2 = n; returns dst in x0 (left untouched).
 *
 * c is an int: only w1 is defined, and the upper 32 bits of x1 may be
 * anything. dup of a byte lane reads only the low 8 bits of w1, so the
 * fill is right whatever they hold, and v0 then has the byte in all 16
 * lanes. 64-byte blocks of two stp of q0, then the tail by the bits of n,
 * each piece stored from the matching view of v0 (q0, d0, s0, h0, b0).
 * n == 0 touches no memory.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_memset_stp)
	dup	v0.16b, w1
	mov	x3, x0			/* the destination cursor */
	cmp	x2, #64
	b.lo	.Lms_tail
.Lms_block:
	stp	q0, q0, [x3]
	stp	q0, q0, [x3, #32]
	add	x3, x3, #64
	sub	x2, x2, #64
	cmp	x2, #64
	b.hs	.Lms_block
.Lms_tail:
	/* x2 < 64 from here: its bits say which pieces are left. */
	tbz	x2, #5, 1f
	stp	q0, q0, [x3], #32
1:	tbz	x2, #4, 2f
	str	q0, [x3], #16
2:	tbz	x2, #3, 3f
	str	d0, [x3], #8
3:	tbz	x2, #2, 4f
	str	s0, [x3], #4
4:	tbz	x2, #1, 5f
	str	h0, [x3], #2
5:	tbz	x2, #0, 6f
	str	b0, [x3]
6:	ret
END(mg_aarch64_memset_stp)
