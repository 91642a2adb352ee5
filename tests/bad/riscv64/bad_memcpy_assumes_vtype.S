/* Copies a first strip before its first vsetvli, with whatever vl and
 * vtype it entered with (as if its caller's last vsetvli were its own),
 * then the usual loop. The psABI promises nothing of vl and vtype at
 * entry: under the harness, which enters with vtype.vill set, the first
 * vle8 is an illegal instruction; under a caller with vl > n it would
 * write past dst's end. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_assumes_vtype)
	mv	t0, a0
	beqz	a2, 2f
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
1:	vsetvli	t1, a2, e8, m8, ta, ma
	vle8.v	v0, (a1)
	vse8.v	v0, (t0)
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	bnez	a2, 1b
2:	ret
END(mg_riscv64_bad_memcpy_assumes_vtype)
