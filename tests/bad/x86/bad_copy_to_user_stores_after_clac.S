/* copy_to_user as a byte loop inside its SMAP brackets, all but its last
 * byte: that one is stored after the clac, where SMAP makes a kernel store
 * to user memory fault (and the exception table, which lists it, turns the
 * copy into -EFAULT on every SMAP CPU). Outside the kernel stac and clac
 * are nops (MG_STAC, MG_CLAC), so it passes every run-time check; only the
 * gate's uaccess check sees it (smap-unbracketed, docs/contract.md U9).
 * x86-64 and i386 (usercopy_x86.h). Its twin, every access bracketed:
 * copy_to_user_bracketed.S. */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_to_user_stores_after_clac))
	UC_ARGS3
	P(mov)	DX, CX
	P(test)	CX, CX
	jz	L(done)
	MG_STAC
	P(dec)	CX
	jz	L(last)
L(loop):
1:	movb	(SI), %al
2:	movb	%al, (DI)
	P(inc)	SI
	P(inc)	DI
	P(dec)	CX
	jnz	L(loop)
L(last):
	MG_CLAC
3:	movb	(SI), %al
4:	movb	%al, (DI)		/* a user store after the clac */
L(done):
	xorl	%eax, %eax
	UC_RET
L(loop_fault):
	/* the bytes of the loop left, and the last one */
	P(lea)	1(CX), AX
	MG_CLAC
	UC_RET
L(last_fault):
	movl	$1, %eax
	UC_RET
END(UC_NAME(bad_copy_to_user_stores_after_clac))

	MG_EXTABLE_UA(1b, L(loop_fault))
	MG_EXTABLE_UA(2b, L(loop_fault))
	MG_EXTABLE_UA(4b, L(last_fault))
