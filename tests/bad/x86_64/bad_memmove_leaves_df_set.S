/* A backward copy with std that forgets the closing cld: every byte is
 * right, and the caller's next string instruction runs backwards. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memmove_leaves_df_set)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	cmpq	%rsi, %rdi
	jb	1f
	leaq	-1(%rdi,%rdx), %rdi	/* d >= s: from the last byte down */
	leaq	-1(%rsi,%rdx), %rsi
	std
	rep movsb
	ret				/* BUG: no cld */
1:	rep movsb			/* d < s: forward */
	ret
END(mg_x86_64_bad_memmove_leaves_df_set)
