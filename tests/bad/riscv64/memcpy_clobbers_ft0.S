/* Passes each byte through ft0 and the t and a registers, all temporaries
 * (not preserved across calls): must pass. The same code under the kernel
 * contract, which has no FP state, is bad_memcpy_kernel_uses_ft0. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_memcpy_clobbers_ft0)
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	fmv.d.x	ft0, t1
	fmv.x.d	a7, ft0
	sb	a7, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	li	t6, -1
	ret
END(mg_riscv64_memcpy_clobbers_ft0)

	.globl	mg_riscv64_bad_memcpy_kernel_uses_ft0
	.type	mg_riscv64_bad_memcpy_kernel_uses_ft0, %function
	.set	mg_riscv64_bad_memcpy_kernel_uses_ft0, mg_riscv64_memcpy_clobbers_ft0
