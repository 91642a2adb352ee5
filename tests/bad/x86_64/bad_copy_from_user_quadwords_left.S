/* copy_from_user by rep movsq and rep movsb whose quadword fixup returns
 * the quadwords left (rcx), not the bytes (8 * rcx + the n % 8 tail):
 * the remainder it reports is too small (wrong-count). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_from_user_quadwords_left)
	movq	%rdx, %rcx
	shrq	$3, %rcx
	andl	$7, %edx
1:	rep movsq
	movl	%edx, %ecx
2:	rep movsb
3:	movq	%rcx, %rax
	ret
END(mg_x86_64_bad_copy_from_user_quadwords_left)

	MG_EXTABLE_UA(1b, 3b)		/* should scale rcx and add the tail */
	MG_EXTABLE_UA(2b, 3b)
