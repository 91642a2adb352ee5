/* A kernel copy_page that moves 64 bytes at a time through q0-q3 without
 * kernel_neon_begin: correct bytes, but the kernel is built with
 * -mgeneral-regs-only, and in it this would overwrite the FP/SIMD
 * registers of whatever task it interrupted. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_copy_page_uses_neon)
	mov	x2, #4096
1:	ldp	q0, q1, [x1]
	ldp	q2, q3, [x1, #32]
	stp	q0, q1, [x0]
	stp	q2, q3, [x0, #32]
	add	x1, x1, #64
	add	x0, x0, #64
	subs	x2, x2, #64
	b.ne	1b
	ret
END(mg_aarch64_bad_copy_page_uses_neon)
