/* copy_from_user in 8-byte words (ldtr, listed) then bytes, whose fixup
 * returns the words left, not the bytes: a fault in the second word of 40
 * bytes says 36 arrived (wrong-count). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_from_user_words_left)
	add	x3, x0, x2
	cmp	x2, #8
	b.lo	L(bytes)
L(word):
	MG_USER(L(fault), ldtr x4, [x1])
	str	x4, [x0], #8
	add	x1, x1, #8
	sub	x5, x3, x0
	cmp	x5, #8
	b.hs	L(word)
L(bytes):
	cmp	x0, x3
	b.eq	L(done)
L(byte):
	MG_USER(L(done), ldtrb w4, [x1])
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	L(byte)
L(done):
	sub	x0, x3, x0
	ret
L(fault):
	sub	x0, x3, x0
	lsr	x0, x0, #3		/* the bug: words, not bytes */
	ret
END(mg_aarch64_bad_copy_from_user_words_left)
