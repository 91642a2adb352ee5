/* A correct copy_to_user (x86-64) that enters its loop through a register:
 * the uaccess audit cannot know where `jmp *%rax` goes, so it cannot say
 * that every user access behind it is bracketed. The gate's uaccess check
 * is then could not judge, naming the jump, and not a pass of what it did
 * not see (tests/run.d/usercopy.sh). */
#include "asmdefs.h"

	.text
ENTRY(copy_to_user_indirect)
	movq	%rdx, %rcx
	xorl	%eax, %eax
	testq	%rcx, %rcx
	jz	L(done)
	MG_STAC
	leaq	L(loop)(%rip), %rax
	jmp	*%rax
L(loop):
1:	movb	(%rsi), %al
2:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	L(loop)
	MG_CLAC
	xorl	%eax, %eax
L(done):
	ret
L(fault):
	movq	%rcx, %rax	/* the bytes not copied */
	MG_CLAC
	ret
END(copy_to_user_indirect)

	MG_EXTABLE_UA(1b, L(fault))
	MG_EXTABLE_UA(2b, L(fault))
