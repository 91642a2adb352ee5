/* Spills a register into the stack slot above its return address, which
 * belongs to the caller. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_writes_caller_frame)
	movq	%rdi, 8(%rsp)		/* BUG: 8(%rsp) is the caller's */
	movq	%rdx, %rcx
	rep movsb
	movq	8(%rsp), %rax
	ret
END(mg_x86_64_bad_memcpy_writes_caller_frame)
