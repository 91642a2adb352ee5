/* copy_to_user as copy_to_user_bracketed.S, every user access between stac
 * and clac, but the fixup of the last byte returns without its clac: a
 * fault there hands the caller a kernel running with user access enabled
 * (EFLAGS.AC set), so that any later stray access to user memory goes
 * unseen by SMAP, which objtool refuses ("return with UACCESS enabled").
 * Outside the kernel stac and clac are nops (MG_STAC, MG_CLAC), so it
 * passes every run-time check; only the gate's uaccess check sees it
 * (smap-left-open, docs/contract.md U11). x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_to_user_fault_leaves_stac))
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
	UC_RET				/* the brackets still open */
END(UC_NAME(bad_copy_to_user_fault_leaves_stac))

	MG_EXTABLE_UA(1b, L(loop_fault))
	MG_EXTABLE_UA(2b, L(loop_fault))
	MG_EXTABLE_UA(4b, L(last_fault))
