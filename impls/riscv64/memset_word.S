/* memset_word: bytes up to dst's 8-byte boundary, aligned sd of c's byte
 * in all eight lanes, then the last bytes. */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memset_word)
	mv	t0, a0
	andi	t1, a1, 0xff
	li	t2, 0x0101010101010101
	mul	t1, t1, t2		/* c in every byte */
L(head):
	andi	t2, t0, 7
	beqz	t2, L(words)
	beqz	a2, L(done)
	sb	a1, 0(t0)
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(head)
L(words):
	li	t3, 8
L(word):
	bltu	a2, t3, L(bytes)
	sd	t1, 0(t0)
	addi	t0, t0, 8
	addi	a2, a2, -8
	j	L(word)
L(bytes):
	beqz	a2, L(done)
	sb	a1, 0(t0)
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(bytes)
L(done):
	ret
END(mg_riscv64_memset_word)
