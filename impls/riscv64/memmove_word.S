/* memmove_word: memcpy_word's aligned words, forward iff dst - src >= n
 * unsigned, else the mirror image from the ends: bytes down to dst's end's
 * 8-byte boundary, words, bytes. The ends share the starts' alignment, so
 * one test of dst ^ src picks words or bytes for both directions. */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memmove_word)
	mv	t0, a0
	xor	t4, a0, a1
	andi	t4, t4, 7		/* nonzero: bytes only */
	li	t3, 8
	sub	t1, a0, a1
	bgeu	t1, a2, L(forward)
	add	t0, a0, a2
	add	a1, a1, a2
	bnez	t4, L(back_bytes)
L(back_head):
	andi	t1, t0, 7
	beqz	t1, L(back_word)
	beqz	a2, L(done)
	addi	a1, a1, -1
	addi	t0, t0, -1
	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a2, a2, -1
	j	L(back_head)
L(back_word):
	bltu	a2, t3, L(back_bytes)
	addi	a1, a1, -8
	addi	t0, t0, -8
	ld	t2, 0(a1)
	sd	t2, 0(t0)
	addi	a2, a2, -8
	j	L(back_word)
L(back_bytes):
	beqz	a2, L(done)
	addi	a1, a1, -1
	addi	t0, t0, -1
	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a2, a2, -1
	j	L(back_bytes)

L(forward):
	bnez	t4, L(bytes)
L(head):
	andi	t1, t0, 7
	beqz	t1, L(word)
	beqz	a2, L(done)
	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(head)
L(word):
	bltu	a2, t3, L(bytes)
	ld	t2, 0(a1)
	sd	t2, 0(t0)
	addi	a1, a1, 8
	addi	t0, t0, 8
	addi	a2, a2, -8
	j	L(word)
L(bytes):
	beqz	a2, L(done)
	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(bytes)
L(done):
	ret
END(mg_riscv64_memmove_word)
