/* copy_from_user as a byte loop whose fixup returns one byte too few left:
 * after a fault at byte k it says k + 1 bytes were copied (wrong-count).
 * x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_from_user_count_off_by_one))
	UC_ARGS3
	P(mov)	DX, CX
	P(test)	CX, CX
	jz	L(done)
L(loop):
1:	movb	(SI), %al
2:	movb	%al, (DI)
	P(inc)	SI
	P(inc)	DI
	P(dec)	CX
	jnz	L(loop)
L(done):
	P(mov)	CX, AX
	UC_RET
L(fault):
	P(lea)	-1(CX), AX		/* off by one */
	UC_RET
END(UC_NAME(bad_copy_from_user_count_off_by_one))

	MG_EXTABLE_UA(1b, L(fault))
	MG_EXTABLE_UA(2b, L(fault))
