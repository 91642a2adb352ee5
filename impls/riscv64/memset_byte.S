/* memset_byte: one sb per byte (sb stores the low 8 bits of c). */
#include "asmdefs.h"

	.text
ENTRY(mg_riscv64_memset_byte)
	mv	t0, a0
	beqz	a2, L(done)
L(loop):
	sb	a1, 0(t0)
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, L(loop)
L(done):
	ret
END(mg_riscv64_memset_byte)
