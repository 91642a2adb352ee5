/* Copies VLENB-byte blocks through v8 with whole-register loads and
 * stores, which need no vsetvl (they ignore vtype, and the call enters
 * with vill set), then the tail byte by byte: v8 is not preserved across
 * calls, so as user code it must pass. The same code under the kernel
 * contract, which has no vector state (docs/contract.md, RK2), is
 * bad_memcpy_kernel_whole_regs: only the registers' poison can show it. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_memcpy_whole_regs)
	mv	t0, a0
	csrr	t2, vlenb
1:	bltu	a2, t2, 2f
	vl1re8.v v8, (a1)
	vs1r.v	v8, (t0)
	add	a1, a1, t2
	add	t0, t0, t2
	sub	a2, a2, t2
	j	1b
2:	beqz	a2, 3f
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	2b
3:	ret
END(mg_riscv64_memcpy_whole_regs)

	.globl	mg_riscv64_bad_memcpy_kernel_whole_regs
	.type	mg_riscv64_bad_memcpy_kernel_whole_regs, %function
	.set	mg_riscv64_bad_memcpy_kernel_whole_regs, mg_riscv64_memcpy_whole_regs
