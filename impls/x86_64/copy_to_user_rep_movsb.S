/* unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
 * A single rep movsb (the kernel's copy_user_enhanced_fast_string without
 * its short-copy path): a fault stops it with rcx counting the bytes not
 * copied, which the fixup returns. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_copy_to_user_rep_movsb)
	movq	%rdx, %rcx
1:	rep movsb
2:	movq	%rcx, %rax
	ret
END(mg_x86_64_copy_to_user_rep_movsb)

	MG_EXTABLE_UA(1b, 2b)
