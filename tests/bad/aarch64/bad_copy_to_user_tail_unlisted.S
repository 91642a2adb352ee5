/* copy_to_user in 8-byte words (sttr, listed) then bytes, whose byte
 * store is missing from the exception table: a fault in the tail, or in a
 * word (whose fixup redoes it byte by byte up to the fault), is one the
 * kernel cannot fix up (unhandled-fault). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_to_user_tail_unlisted)
	add	x3, x0, x2
	cmp	x2, #8
	b.lo	L(bytes)
L(word):
	ldr	x4, [x1]
	MG_USER(L(redo), sttr x4, [x0])
	add	x0, x0, #8
	add	x1, x1, #8
	sub	x5, x3, x0
	cmp	x5, #8
	b.hs	L(word)
L(redo):				/* to and from at the word's start */
L(bytes):
	cmp	x0, x3
	b.eq	L(done)
L(byte):
	ldrb	w4, [x1], #1
	sttrb	w4, [x0]		/* the bug: no entry */
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(byte)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_bad_copy_to_user_tail_unlisted)
