/* Lowers the x87 precision control to 24 bits and leaves it there. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_changes_x87_cw)
	fnstcw	-2(%rsp)
	andw	$0xfcff, -2(%rsp)	/* PC = 00: single precision */
	fldcw	-2(%rsp)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_changes_x87_cw)
