/* Sets frm to round toward zero (1) for its loop and leaves it set: every
 * later float calculation of the caller rounds differently. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_changes_frm)
	fsrmi	1
	mv	t0, a0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	ret
END(mg_riscv64_bad_memcpy_changes_frm)
