/* A vector copy that takes each byte x through a fixed-point shift which
 * is x only under vxrm's rnu: (2x - 1) >> 1 with vssrl, rounded up. vxrm
 * is unspecified at entry (psABI, Vector Register Convention; docs/
 * contract.md, R9): under rdn, rne or rod it is x - 1 for some x, so the
 * cases that enter with another vxrm fail, an abi-violation ("depends on
 * the floating-point environment at entry"). Its twin, memcpy_sets_vxrm,
 * sets rnu first and passes. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_assumes_vxrm)
	mv	t0, a0
	beqz	a2, 2f
1:	vsetvli	t1, a2, e8, m1, ta, ma
	vle8.v	v8, (a1)
	vsetvli	zero, t1, e16, m2, ta, ma
	vzext.vf2 v10, v8
	vsll.vi	v10, v10, 1
	vadd.vi	v10, v10, -1
	vssrl.vi v10, v10, 1
	vsetvli	zero, t1, e8, m1, ta, ma
	vnsrl.wi v8, v10, 0
	vse8.v	v8, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, 1b
2:	ret
END(mg_riscv64_bad_memcpy_assumes_vxrm)

/* The same copy after setting vxrm itself: must pass in any environment. */
ENTRY(mg_riscv64_memcpy_sets_vxrm)
	csrwi	vxrm, 0
	j	mg_riscv64_bad_memcpy_assumes_vxrm
END(mg_riscv64_memcpy_sets_vxrm)
