/* copy_to_user (rep movsb, listed) that first reads the kernel source's
 * byte at from + n, one past its end: the kernel buffer faults where it
 * sits at its guard page (kernel-fault). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_to_user_reads_past_src)
	movb	(%rsi,%rdx), %al
	movq	%rdx, %rcx
1:	rep movsb
2:	movq	%rcx, %rax
	ret
END(mg_x86_64_bad_copy_to_user_reads_past_src)

	MG_EXTABLE_UA(1b, 2b)
