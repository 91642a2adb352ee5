/* bad_memmove_signed_len: a byte memmove that picks its direction right
 * (dst - src < n, unsigned: backward) but tests the length as SIGNED, as
 * glibc's ARMv7 memcpy and memmove did (CVE-2020-6096): a length of 2 GiB
 * or more is negative, and nothing is copied. Correct below 2 GiB. On a
 * 32-bit build the huge-length check's overlapping memmove of 2 GiB and
 * more (one buffer) catches it: wrong-result (docs/contract.md, H7).
 *
 * void *bad_memmove_signed_len(void *dst, const void *src, size_t n)
 *	r0 = dst, r1 = src, r2 = n; returns dst in r0. */
#include "asmdefs.h"

	.syntax unified
	.arm
	.text
ENTRY(mg_armhf_bad_memmove_signed_len)
	mov	ip, r0
	sub	r3, r0, r1
	cmp	r3, r2
	blo	L(backward)		/* dst overlaps src from above */
	cmp	r2, #0
	ble	L(done)			/* the bug: signed, n >= 2 GiB is "negative" */
L(forward):
	ldrb	r3, [r1], #1
	strb	r3, [ip], #1
	subs	r2, r2, #1
	bgt	L(forward)
	b	L(done)
L(backward):
	cmp	r2, #0
	ble	L(done)			/* the same bug, the other way */
	add	r1, r1, r2
	add	ip, ip, r2
L(back_byte):
	ldrb	r3, [r1, #-1]!
	strb	r3, [ip, #-1]!
	subs	r2, r2, #1
	bgt	L(back_byte)
L(done):
	bx	lr
END(mg_armhf_bad_memmove_signed_len)
