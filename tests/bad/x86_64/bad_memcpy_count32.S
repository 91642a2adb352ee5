/* A byte count moved with a 32-bit instruction: exact below 4 GiB, and at
 * 4 GiB and more it copies only n mod 2^32 bytes and returns as if done. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_count32)
	movq	%rdi, %rax
	movl	%edx, %ecx		/* BUG: the upper 32 bits of n are lost */
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_count32)
