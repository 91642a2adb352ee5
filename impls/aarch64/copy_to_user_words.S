/* unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
 *	x0 = to, x1 = from, x2 = n; returns the bytes not copied in x0.
 * 16-byte blocks of one ldp and two unprivileged sttr (the kernel's
 * user_stp), then the rest byte by byte. A fault in a block resumes at
 * the byte loop with to and from still at the block's start: the bytes
 * the first sttr stored are stored again, and the block is finished up to
 * the faulting byte, so every byte stored is counted. Uses x3-x6. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_copy_to_user_words)
	add	x3, x0, x2		/* the end of to */
	cmp	x2, #16
	b.lo	L(bytes)
L(block):
	ldp	x4, x5, [x1]
	MG_USER(L(bytes), sttr x4, [x0])
	MG_USER(L(bytes), sttr x5, [x0, #8])
	add	x0, x0, #16
	add	x1, x1, #16
	sub	x6, x3, x0
	cmp	x6, #16
	b.hs	L(block)
L(bytes):
	cmp	x0, x3
	b.eq	L(done)
L(byte):
	ldrb	w4, [x1], #1
	MG_USER(L(done), sttrb w4, [x0])
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(byte)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_copy_to_user_words)
