/* unsigned long clear_user(void __user *to, unsigned long n)
 *	x0 = to, x1 = n; returns the bytes not cleared in x0.
 * 8-byte unprivileged sttr xzr stores, then the rest byte by byte. A
 * fault in a word resumes at the byte loop at that word, which clears up
 * to the faulting byte, so the count is exact. Uses x3, x4. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_clear_user_words)
	add	x3, x0, x1		/* the end of to */
	cmp	x1, #8
	b.lo	L(bytes)
L(word):
	MG_USER(L(bytes), sttr xzr, [x0])
	add	x0, x0, #8
	sub	x4, x3, x0
	cmp	x4, #8
	b.hs	L(word)
L(bytes):
	cmp	x0, x3
	b.eq	L(done)
L(byte):
	MG_USER(L(done), sttrb wzr, [x0])
	add	x0, x0, #1
	cmp	x0, x3
	b.ne	L(byte)
L(done):
	sub	x0, x3, x0
	ret
END(mg_aarch64_clear_user_words)
