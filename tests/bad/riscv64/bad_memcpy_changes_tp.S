/* Counts down the length in tp, the thread pointer, as if it were one
 * more free register: tp is unallocatable (TLS, errno, signal handlers). */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_changes_tp)
	mv	t0, a0
	mv	tp, a2
	beqz	tp, 2f
1:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	tp, tp, -1
	bnez	tp, 1b
2:	ret
END(mg_riscv64_bad_memcpy_changes_tp)
