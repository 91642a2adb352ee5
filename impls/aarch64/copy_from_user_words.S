/* unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
 *	x0 = to, x1 = from, x2 = n; returns the bytes not copied in x0.
 * 16-byte blocks of two unprivileged ldtr (ldtr has no pair form: the
 * kernel's user_ldp is the same two loads) and one stp, then the rest
 * byte by byte. A fault in a block resumes at the byte loop with to and
 * from still at the block's start, so the block is redone up to the
 * faulting byte and the count is exact (as the 6.1 x86 tail handler does;
 * arm64's own copy_template stops at the block). Uses x3-x6. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_copy_from_user_words)
	add	x3, x0, x2		/* the end of to */
	cmp	x2, #16
	b.lo	L(bytes)
L(block):
	MG_USER(L(bytes), ldtr x4, [x1])
	MG_USER(L(bytes), ldtr x5, [x1, #8])
	stp	x4, x5, [x0], #16
	add	x1, x1, #16
	sub	x6, x3, x0
	cmp	x6, #16
	b.hs	L(block)
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
END(mg_aarch64_copy_from_user_words)
