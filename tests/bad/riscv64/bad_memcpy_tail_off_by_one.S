/* Copies halfwords, and stores the last byte of an odd length with sh:
 * one byte past the end. (The fault decoder must call sh a write.) */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_tail_off_by_one)
	mv	t0, a0
	li	t2, 2
1:	bltu	a2, t2, 2f
	lbu	t1, 0(a1)
	lbu	t3, 1(a1)
	sb	t1, 0(t0)
	sb	t3, 1(t0)
	addi	a1, a1, 2
	addi	t0, t0, 2
	addi	a2, a2, -2
	j	1b
2:	beqz	a2, 3f
	lbu	t1, 0(a1)
	sh	t1, 0(t0)
3:	ret
END(mg_riscv64_bad_memcpy_tail_off_by_one)
