/* copy_to_user in quadwords, then bytes; the quadword loop's fixup goes to
 * the byte copy, but the byte store is missing from the exception table:
 * every fault ends there, unhandled (the kernel would oops). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_to_user_tail_unlisted)
	movq	%rdx, %rcx
	shrq	$3, %rcx
	andl	$7, %edx
	jrcxz	L(tail)
L(quads):
1:	movq	(%rsi), %rax
2:	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	decq	%rcx
	jnz	L(quads)
L(tail):
	movl	%edx, %ecx
	jrcxz	L(done)
L(bytes):
3:	movb	(%rsi), %al
4:	movb	%al, (%rdi)		/* not listed */
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	L(bytes)
L(done):
	movq	%rcx, %rax
	ret
L(quad_fault):
	leaq	(%rdx,%rcx,8), %rcx
	jmp	L(bytes)
END(mg_x86_64_bad_copy_to_user_tail_unlisted)

	MG_EXTABLE_UA(1b, L(quad_fault))
	MG_EXTABLE_UA(2b, L(quad_fault))
	MG_EXTABLE_UA(3b, L(done))
