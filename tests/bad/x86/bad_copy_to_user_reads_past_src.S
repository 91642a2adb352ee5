/* copy_to_user (rep movsb, listed) that first reads the kernel source's
 * byte at from + n, one past its end: the kernel buffer faults where it
 * sits at its guard page (kernel-fault). x86-64 and i386
 * (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_to_user_reads_past_src))
	UC_ARGS3
	movb	(SI,DX), %al
	P(mov)	DX, CX
1:	rep movsb
2:	P(mov)	CX, AX
	UC_RET
END(UC_NAME(bad_copy_to_user_reads_past_src))

	MG_EXTABLE_UA(1b, 2b)
