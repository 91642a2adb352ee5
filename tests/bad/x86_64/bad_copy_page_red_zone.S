/* A kernel copy_page that parks each word 8 bytes below rsp: the red zone
 * user code may use, but kernel code has none (-mno-red-zone): an
 * interrupt pushes its frame right there. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_copy_page_red_zone)
	movl	$512, %ecx
1:	movq	(%rsi), %rax
	movq	%rax, -8(%rsp)		/* BUG: no red zone in the kernel */
	movq	-8(%rsp), %rax
	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	decl	%ecx
	jnz	1b
	ret
END(mg_x86_64_bad_copy_page_red_zone)
