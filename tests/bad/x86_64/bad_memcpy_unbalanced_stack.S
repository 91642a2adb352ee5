/* Returns with `ret $8`, the callee-pops habit of 32-bit stdcall: the
 * caller gets control back with its stack pointer 8 bytes too high. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_unbalanced_stack)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret	$8
END(mg_x86_64_bad_memcpy_unbalanced_stack)
