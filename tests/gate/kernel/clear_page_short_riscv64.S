/* A riscv64 clear_page written as a kernel file (gated with --kernel,
 * through memgate's shim: ENTRY, END, REG_S and SZREG as the kernel's
 * asm.h has them), 8 bytes short: its last doubleword keeps what it held
 * (tests/run.d/repro.sh). Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm.h>

ENTRY(clear_page_short_riscv64)
	li	t0, PAGE_SIZE - SZREG	/* BUG: one doubleword short */
1:	REG_S	zero, 0(a0)
	addi	a0, a0, SZREG
	addi	t0, t0, -SZREG
	bnez	t0, 1b
	ret
END(clear_page_short_riscv64)
