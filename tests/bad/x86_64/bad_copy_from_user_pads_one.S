/* copy_from_user as a byte loop whose fixup zeroes the byte it could not
 * fetch: one byte written past the ones the count says were copied
 * (write-past-count; zero-padding is copy_from_user's C wrapper's job,
 * and it pads all of the rest). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_from_user_pads_one)
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
	movb	$0, (%rdi)
	movq	%rcx, %rax
	ret
END(mg_x86_64_bad_copy_from_user_pads_one)

	MG_EXTABLE_UA(1b, L(fault))
	MG_EXTABLE_UA(2b, L(done))
