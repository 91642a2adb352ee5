/* A byte loop that leaves fflags' inexact flag set, as an FP operation
 * in a register it saved and restored would (fs0 round-tripped, no FP
 * temporary touched): kernel code has no FP state at all (docs/contract.md,
 * RK1), so only the fflags comparison can see it. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_kernel_sets_fflags)
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	csrsi	fflags, 1
	ret
END(mg_riscv64_bad_memcpy_kernel_sets_fflags)
