/* memcpy_byte's copy after setting fflags' inexact flag, as an FP
 * operation in a register it saved and restored would (no FP temporary
 * touched): kernel code has no FP state at all (docs/contract.md, RK1), so
 * only the fflags comparison can see it. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_kernel_sets_fflags)
	csrsi	fflags, 1
	tail	mg_riscv64_memcpy_byte
END(mg_riscv64_bad_memcpy_kernel_sets_fflags)
