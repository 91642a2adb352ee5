/* copy_from_user that first reads the user buffer's last byte and, if that
 * faults, gives up and returns n: nothing copied although the bytes before
 * the fault could have been (nothing-copied). x86-64 and i386
 * (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_from_user_probes_end))
	UC_ARGS3
	P(mov)	DX, CX
	P(test)	DX, DX
	jz	L(copy)
1:	movb	-1(SI,DX), %al
L(copy):
2:	rep movsb
3:	P(mov)	CX, AX
	UC_RET
END(UC_NAME(bad_copy_from_user_probes_end))

	MG_EXTABLE_UA(1b, 3b)		/* cx is still n */
	MG_EXTABLE_UA(2b, 3b)
