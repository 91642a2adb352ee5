/* copy_from_user as a byte loop whose fixup returns one byte too few left:
 * after a fault at byte k it says k + 1 bytes were copied (wrong-count). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_from_user_count_off_by_one)
	movq	%rdx, %rcx
	testq	%rcx, %rcx
	jz	L(done)
L(loop):
1:	movb	(%rsi), %al
2:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	L(loop)
L(done):
	movq	%rcx, %rax
	ret
L(fault):
	leaq	-1(%rcx), %rax		/* off by one */
	ret
END(mg_x86_64_bad_copy_from_user_count_off_by_one)

	MG_EXTABLE_UA(1b, L(fault))
	MG_EXTABLE_UA(2b, L(fault))
