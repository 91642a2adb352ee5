/* copy_from_user with rep_movs_alternative's register convention (Linux
 * 6.4+, called from copy_user_generic's inline assembly):
 *	args=rdi,rsi,rcx ret=rcx clobbers=rax
 * to in rdi, from in rsi, the length in rcx; returns the bytes not copied
 * in rcx; may change rdi, rsi ("+D", "+S") and rax, and nothing else, not
 * even the registers a C function may. Quadwords while 8 or more are left,
 * then bytes; a fault in a quadword goes on in bytes, which stop at the
 * exact faulting byte. Written for memgate's tests (docs/conventions.md). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_copy_from_user_movs_alt)
	cmpq	$8, %rcx
	jb	L(bytes)
L(words):
1:	movq	(%rsi), %rax
2:	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	subq	$8, %rcx
	cmpq	$8, %rcx
	jae	L(words)
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
END(mg_x86_64_copy_from_user_movs_alt)

	MG_EXTABLE_UA(1b, L(bytes))
	MG_EXTABLE_UA(2b, L(bytes))
	MG_EXTABLE_UA(3b, L(done))
	MG_EXTABLE_UA(4b, L(done))
