/* memcpy_byte: the plainest RISC-V copy, one lbu/sb pair per byte. */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memcpy_byte)
	mv	t0, a0			/* a0 is the return value */
	beqz	a2, L(done)
L(loop):
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, L(loop)
L(done):
	ret
END(mg_riscv64_memcpy_byte)
