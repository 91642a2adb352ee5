/* Opens a 16-byte frame and closes it with 32: sp comes back 16 too high. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_moves_sp)
	addi	sp, sp, -16
	.cfi_adjust_cfa_offset 16
	sd	a0, 0(sp)
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	ld	a0, 0(sp)
	addi	sp, sp, 32
	.cfi_adjust_cfa_offset -32
	ret
END(mg_riscv64_bad_memcpy_moves_sp)
