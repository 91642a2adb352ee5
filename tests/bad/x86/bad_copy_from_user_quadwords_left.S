/* copy_from_user by rep movsq (i386: rep movsl) and rep movsb whose word
 * fixup returns the words left (rcx / ecx), not the bytes (WORD * cx +
 * the tail): the remainder it reports is too small (wrong-count).
 * x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_from_user_quadwords_left))
	UC_ARGS3
	P(mov)	DX, CX
	P(shr)	$WORD_SHIFT, CX
	andl	$(WORD - 1), %edx
1:	rep P(movs)
	movl	%edx, %ecx
2:	rep movsb
3:	P(mov)	CX, AX
	UC_RET
END(UC_NAME(bad_copy_from_user_quadwords_left))

	MG_EXTABLE_UA(1b, 3b)		/* should scale cx and add the tail */
	MG_EXTABLE_UA(2b, 3b)
