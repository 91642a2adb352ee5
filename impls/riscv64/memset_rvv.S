/* memset_rvv: c splatted over a whole register group once (vl = VLMAX),
 * then strips of vsetvli's length stored with vse8. Needs V (--requires v). */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memset_rvv)
	mv	t0, a0
	beqz	a2, L(done)
	vsetvli	t1, zero, e8, m8, ta, ma
	vmv.v.x	v0, a1
L(loop):
	vsetvli	t1, a2, e8, m8, ta, ma
	vse8.v	v0, (t0)
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, L(loop)
L(done):
	ret
END(mg_riscv64_memset_rvv)
