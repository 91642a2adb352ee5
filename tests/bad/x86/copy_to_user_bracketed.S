/* copy_to_user as a byte loop with every user access inside its SMAP
 * brackets: the twin of bad_copy_to_user_stores_after_clac.S, with the
 * same shape (a loop, then the last byte on a path of its own, a fixup
 * that closes the brackets and one reached with them still open, as 6.1's
 * copy_user_64.S's tail handlers are); the gate's uaccess check passes it.
 * x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

/* bad_copy_to_user_fault_leaves_stac.S builds this body under its own
 * name, without the last fixup's clac. */
#ifndef BRACKETED_NAME
#define BRACKETED_NAME copy_to_user_bracketed
#define LAST_FIXUP_CLOSES MG_CLAC
#endif
#define UC_XNAME(name) UC_NAME(name)

	.text
ENTRY(UC_XNAME(BRACKETED_NAME))
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
3:	movb	(SI), %al
4:	movb	%al, (DI)
	MG_CLAC
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
	LAST_FIXUP_CLOSES
	UC_RET
END(UC_XNAME(BRACKETED_NAME))

	MG_EXTABLE_UA(1b, L(loop_fault))
	MG_EXTABLE_UA(2b, L(loop_fault))
	MG_EXTABLE_UA(4b, L(last_fault))
