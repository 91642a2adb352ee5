/* An instruction the CPU does not have: ud2 stands for one (say, AVX-512 on
 * a CPU without it) on one length, and must be caught as a crash. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_ud2)
	movq	%rdi, %rax
	cmpq	$33, %rdx
	jne	1f
	ud2
1:	movq	%rdx, %rcx
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_ud2)
