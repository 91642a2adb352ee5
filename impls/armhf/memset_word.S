/* memset_word: bytes up to dst's 4-byte boundary, then aligned word
 * stores of c's low byte replicated four times, then the last bytes. Only
 * the low byte of c (an int) counts: it is masked before it is spread. */
#include "asmdefs.h"

	.text
	.arm
	.syntax unified
ENTRY(mg_armhf_memset_word)
	mov	r3, r0			/* r0 is the return value */
	and	r1, r1, #0xff
	orr	r1, r1, r1, lsl #8
	orr	r1, r1, r1, lsl #16	/* c in all four bytes */
L(head):
	tst	r3, #3
	beq	L(words)
	cmp	r2, #0
	beq	L(done)
	strb	r1, [r3], #1
	sub	r2, r2, #1
	b	L(head)
L(words):
	cmp	r2, #4
	blo	L(bytes)
	str	r1, [r3], #4
	sub	r2, r2, #4
	b	L(words)
L(bytes):
	cmp	r2, #0
	beq	L(done)
	strb	r1, [r3], #1
	sub	r2, r2, #1
	b	L(bytes)
L(done):
	bx	lr
END(mg_armhf_memset_word)
