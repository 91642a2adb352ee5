/* A vector memset written for VLEN 128: it asks for a whole register
 * (vl = VLMAX, e8, m1) and steps 16 bytes per store, then finishes with
 * bytes. Right where VLEN is 128; with a longer VLEN each store writes
 * VLEN/8 bytes, and the last whole block's store runs past the end. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memset_vlen128)
	mv	t0, a0
	vsetvli	t1, zero, e8, m1, ta, ma
	vmv.v.x	v0, a1
	li	t2, 16
1:	bltu	a2, t2, 2f
	vse8.v	v0, (t0)
	addi	t0, t0, 16
	addi	a2, a2, -16
	j	1b
2:	beqz	a2, 3f
	sb	a1, 0(t0)
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	2b
3:	ret
END(mg_riscv64_bad_memset_vlen128)
