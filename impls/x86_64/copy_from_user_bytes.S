/* unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
 * A byte loop: each load and store may fault on user memory and is listed
 * in the exception table; the fixup returns the bytes left (rcx), which at
 * a fault are exactly the ones from the faulting byte on. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_copy_from_user_bytes)
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
END(mg_x86_64_copy_from_user_bytes)

	MG_EXTABLE_UA(1b, L(done))
	MG_EXTABLE_UA(2b, L(done))
