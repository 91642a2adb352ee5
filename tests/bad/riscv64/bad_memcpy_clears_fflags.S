/* memcpy_byte's copy after clearing fflags: a function does not clear its
 * caller's floating-point status flags (C11 7.6; docs/contract.md, R7),
 * which only a case entering with flags raised can show. */
#include "asmdefs.h"
	.text
ENTRY(mg_riscv64_bad_memcpy_clears_fflags)
	csrwi	fflags, 0
	tail	mg_riscv64_memcpy_byte
END(mg_riscv64_bad_memcpy_clears_fflags)
