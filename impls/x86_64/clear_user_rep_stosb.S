/* unsigned long clear_user(void __user *to, unsigned long n)
 * A single rep stosb of zeros; a fault stops it with rcx counting the bytes
 * not cleared, which the fixup returns. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_clear_user_rep_stosb)
	movq	%rsi, %rcx
	xorl	%eax, %eax
1:	rep stosb
2:	movq	%rcx, %rax
	ret
END(mg_x86_64_clear_user_rep_stosb)

	MG_EXTABLE_UA(1b, 2b)
