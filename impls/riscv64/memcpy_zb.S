/* memcpy_zb: memcpy_word's plan written with the bit-manipulation
 * extensions a routine may declare (docs/contract.md, R13): the head's
 * byte count to dst's 8-byte boundary is minu(-dst mod 8, n) (Zbb), and
 * the word loop counts words and indexes both buffers with sh3add (Zba).
 * Aligned ld/sd where dst and src share their alignment mod 8, else bytes.
 * It requires zba and zbb: under a CPU model without them it is n/a. */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memcpy_zb)
	mv	t0, a0
	xor	t1, a0, a1
	andi	t1, t1, 7
	bnez	t1, L(bytes)		/* alignments differ: bytes only */
	neg	t2, a0
	andi	t2, t2, 7
	minu	t2, t2, a2		/* head: to the boundary, at most n */
	sub	a2, a2, t2
L(head):
	beqz	t2, L(words)
	lbu	t3, 0(a1)
	sb	t3, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	t2, t2, -1
	j	L(head)
L(words):
	srli	t4, a2, 3		/* whole words */
	li	t5, 0			/* the word's index */
L(word):
	bgeu	t5, t4, L(tail)
	sh3add	t6, t5, a1
	ld	t3, 0(t6)
	sh3add	t6, t5, t0
	sd	t3, 0(t6)
	addi	t5, t5, 1
	j	L(word)
L(tail):
	sh3add	a1, t4, a1
	sh3add	t0, t4, t0
	andi	a2, a2, 7
L(bytes):
	beqz	a2, L(done)
	lbu	t3, 0(a1)
	sb	t3, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(bytes)
L(done):
	ret
END(mg_riscv64_memcpy_zb)
