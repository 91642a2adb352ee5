/* copy_from_user as a byte loop whose fixup zeroes the byte it could not
 * fetch: one byte written past the ones the count says were copied
 * (write-past-count; zero-padding is copy_from_user's C wrapper's job,
 * and it pads all of the rest). x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_from_user_pads_one))
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
	movb	$0, (DI)
	P(mov)	CX, AX
	UC_RET
END(UC_NAME(bad_copy_from_user_pads_one))

	MG_EXTABLE_UA(1b, L(fault))
	MG_EXTABLE_UA(2b, L(done))
