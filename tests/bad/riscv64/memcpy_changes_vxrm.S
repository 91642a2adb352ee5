/* A vector copy that sets vxrm (round-down) and leaves it, and leaves vl
 * and vtype as its last vsetvli made them: none of them is preserved
 * across calls (psABI, Vector Register Convention): must pass. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_memcpy_changes_vxrm)
	csrwi	vxrm, 2
	mv	t0, a0
	beqz	a2, 2f
1:	vsetvli	t1, a2, e8, m1, ta, ma
	vle8.v	v8, (a1)
	vse8.v	v8, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, 1b
2:	ret
END(mg_riscv64_memcpy_changes_vxrm)
