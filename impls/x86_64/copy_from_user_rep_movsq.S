/* unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
 * rep movsq for n / 8 quadwords, then rep movsb for the rest. A fault in
 * the quadwords is a UCOPY_LEN8 entry on rdx: the kernel's handler makes
 * rcx the bytes left (8 * rcx + rdx) and resumes at the byte copy, which
 * then copies up to the faulting byte and stops there, listed too. */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_copy_from_user_rep_movsq)
	movq	%rdx, %rcx
	shrq	$3, %rcx
	andl	$7, %edx
1:	rep movsq
	movl	%edx, %ecx
2:	rep movsb
3:	movq	%rcx, %rax
	ret
END(mg_x86_64_copy_from_user_rep_movsq)

	MG_EXTABLE(1b, 2b, MG_EX_TYPE_UCOPY_LEN | MG_EX_DATA_REG(MG_EX_REG_DX) | MG_EX_DATA_IMM(8))
	MG_EXTABLE_UA(2b, 3b)
