/* A vector copy that sets vxrm (round-down) and leaves it, and leaves vl
 * and vtype as its last vsetvli made them: none of them is preserved
 * across calls (psABI, Vector Register Convention): must pass. The same
 * code as kernel code is bad_memcpy_kernel_uses_v (6.1's kernel has no
 * vector state: docs/contract.md, RK2), and passes again as kernel code
 * that declares it (memcpy_kernel_vector_declared, --requires fpu). */
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

	.globl	mg_riscv64_bad_memcpy_kernel_uses_v
	.type	mg_riscv64_bad_memcpy_kernel_uses_v, %function
	.set	mg_riscv64_bad_memcpy_kernel_uses_v, mg_riscv64_memcpy_changes_vxrm
	.globl	mg_riscv64_memcpy_kernel_vector_declared
	.type	mg_riscv64_memcpy_kernel_vector_declared, %function
	.set	mg_riscv64_memcpy_kernel_vector_declared, mg_riscv64_memcpy_changes_vxrm
