/* copy_from_user that first reads the user buffer's last byte and, if that
 * faults, gives up and returns n: nothing copied although the bytes before
 * the fault could have been (nothing-copied). */
#include "asmdefs.h"

	.text
ENTRY(mg_x86_64_bad_copy_from_user_probes_end)
	movq	%rdx, %rcx
	testq	%rdx, %rdx
	jz	L(copy)
1:	movb	-1(%rsi,%rdx), %al
L(copy):
2:	rep movsb
3:	movq	%rcx, %rax
	ret
END(mg_x86_64_bad_copy_from_user_probes_end)

	MG_EXTABLE_UA(1b, 3b)		/* rcx is still n */
	MG_EXTABLE_UA(2b, 3b)
