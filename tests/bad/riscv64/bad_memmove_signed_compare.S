/* Chooses its direction with a signed compare of dst - src with n (as
 * Linux's arch/riscv/lib/memmove.S did with slt before 9d1f0ec9f717):
 * when dst is below an overlapping src the difference is negative, so it
 * copies backward and overwrites source bytes before it reads them. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memmove_signed_compare)
	mv	t0, a0
	beqz	a2, 3f
	sub	t2, a0, a1
	bge	t2, a2, 2f		/* signed: the bug */
	add	t0, a0, a2
	add	a1, a1, a2
1:	addi	a1, a1, -1
	addi	t0, t0, -1
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a2, a2, -1
	bnez	a2, 1b
	ret
2:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 2b
3:	ret
END(mg_riscv64_bad_memmove_signed_compare)
