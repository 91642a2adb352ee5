/* memcpy_rvv: the vector extension's strip-mined loop: vsetvli picks as
 * many bytes as fit in a group of eight vector registers (e8, m8: 8 * VLEN
 * / 8 bytes) or as are left, one vle8/vse8 pair copies them, and the
 * pointers move by what vsetvli granted. Nothing depends on VLEN.
 * Needs V (--requires v). */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memcpy_rvv)
	mv	t0, a0
	beqz	a2, L(done)
L(loop):
	vsetvli	t1, a2, e8, m8, ta, ma
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, L(loop)
L(done):
	ret
END(mg_riscv64_memcpy_rvv)
