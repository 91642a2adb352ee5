/* Passes each byte through fs0 (fmv.d.x, fmv.x.d) as if it were a
 * temporary: fs0 is callee-saved (LP64D: all 64 bits). */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_clobbers_fs0)
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	fmv.d.x	fs0, t1
	fmv.x.d	t1, fs0
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	ret
END(mg_riscv64_bad_memcpy_clobbers_fs0)
