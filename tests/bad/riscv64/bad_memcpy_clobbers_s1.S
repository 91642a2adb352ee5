/* Uses the callee-saved s1 as the byte register without saving it: the
 * copy is right, the caller's s1 is gone. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_clobbers_s1)
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	s1, 0(a1)
	sb	s1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:
	ret
END(mg_riscv64_bad_memcpy_clobbers_s1)
