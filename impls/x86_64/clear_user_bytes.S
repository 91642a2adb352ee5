/* unsigned long clear_user(void __user *to, unsigned long n)
 * A byte loop of stores, each listed in the exception table; the fixup
 * returns the bytes left (rcx). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_clear_user_bytes)
	movq	%rsi, %rcx
	testq	%rcx, %rcx
	jz	L(done)
L(loop):
1:	movb	$0, (%rdi)
	incq	%rdi
	decq	%rcx
	jnz	L(loop)
L(done):
	movq	%rcx, %rax
	ret
END(mg_x86_64_clear_user_bytes)

	MG_EXTABLE_UA(1b, L(done))
