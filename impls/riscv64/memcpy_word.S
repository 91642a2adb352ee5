/* memcpy_word: aligned 8-byte words where dst and src share their
 * alignment mod 8 (bytes up to dst's boundary, then ld/sd, then the last
 * bytes), bytes where they do not. Every access is naturally aligned: on
 * RISC-V hardware a misaligned one may trap or be emulated at hundreds of
 * cycles, and kernel code must not make one. */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memcpy_word)
	mv	t0, a0
	xor	t1, a0, a1
	andi	t1, t1, 7
	bnez	t1, L(bytes)		/* no common alignment: bytes only */
L(head):
	andi	t1, t0, 7
	beqz	t1, L(words)
	beqz	a2, L(done)
	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	L(head)
L(words):
	li	t3, 8
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
END(mg_riscv64_memcpy_word)
