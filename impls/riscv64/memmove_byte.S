/* memmove_byte: one byte at a time, forward iff dst - src >= n as an
 * unsigned difference (dst below src, or past its end), else from the end.
 * The unsigned compare is the point: Linux's arch/riscv/lib/memmove.S chose
 * its direction with a signed one (fixed in 9d1f0ec9f717). */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memmove_byte)
	mv	t0, a0
	beqz	a2, L(done)
	sub	t2, a0, a1
	bgeu	t2, a2, L(forward)
	add	t0, a0, a2		/* backward: from both ends */
	add	a1, a1, a2
L(backward):
	addi	a1, a1, -1
	addi	t0, t0, -1
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a2, a2, -1
	bnez	a2, L(backward)
	ret
L(forward):
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, L(forward)
L(done):
	ret
END(mg_riscv64_memmove_byte)
