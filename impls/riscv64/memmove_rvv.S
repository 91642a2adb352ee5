/* memmove_rvv: memcpy_rvv's loop forward iff dst - src >= n unsigned, else
 * from the ends down: each strip is loaded whole before it is stored, and
 * a backward strip's store lies above every byte still to be loaded.
 * Needs V (--requires v). */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memmove_rvv)
	mv	t0, a0
	beqz	a2, L(done)
	sub	t2, a0, a1
	bgeu	t2, a2, L(forward)
	add	t0, a0, a2
	add	a1, a1, a2
L(backward):
	vsetvli	t1, a2, e8, m8, ta, ma
	sub	a1, a1, t1
	sub	t0, t0, t1
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
	sub	a2, a2, t1
	bnez	a2, L(backward)
	ret
L(forward):
	vsetvli	t1, a2, e8, m8, ta, ma
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, L(forward)
L(done):
	ret
END(mg_riscv64_memmove_rvv)
