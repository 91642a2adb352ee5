/* A vector copy that "resumes" its last strip by writing vstart, and
 * returns with vstart nonzero: the psABI lets a caller assume it is zero
 * upon return, and its next vector instruction would skip elements. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_leaves_vstart)
	mv	t0, a0
	beqz	a2, 2f
1:	vsetvli	t1, a2, e8, m8, ta, ma
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, 1b
2:	csrwi	vstart, 1
	ret
END(mg_riscv64_bad_memcpy_leaves_vstart)
