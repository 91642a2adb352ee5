/* copy_from_user_movs_alt's broken twin: declared with rep_movs_alternative's
 * convention (args=rdi,rsi,rcx ret=rcx clobbers=rax) but it counts the
 * quadwords in r8, which a C function may change and this convention does
 * not let it: the caller's inline assembly keeps a value in r8 across the
 * call. Must fail as abi-violation, naming r8 and the convention. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_from_user_movs_alt_r8)
	movq	%rcx, %r8
	shrq	$3, %r8
	jz	L(bytes)
L(words):
1:	movq	(%rsi), %rax
2:	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	subq	$8, %rcx
	decq	%r8
	jnz	L(words)
L(bytes):
	testq	%rcx, %rcx
	jz	L(done)
3:	movb	(%rsi), %al
4:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	3b
L(done):
	ret
END(mg_x86_64_bad_copy_from_user_movs_alt_r8)

	MG_EXTABLE_UA(1b, L(bytes))
	MG_EXTABLE_UA(2b, L(bytes))
	MG_EXTABLE_UA(3b, L(done))
	MG_EXTABLE_UA(4b, L(done))
