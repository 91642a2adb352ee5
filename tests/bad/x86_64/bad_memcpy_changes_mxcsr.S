/* Sets flush-to-zero and denormals-are-zero (a "fast math" tweak for its
 * own vector code) and never puts MXCSR back. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_changes_mxcsr)
	stmxcsr	-4(%rsp)
	orl	$0x8040, -4(%rsp)	/* FZ | DAZ */
	ldmxcsr	-4(%rsp)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_changes_mxcsr)
