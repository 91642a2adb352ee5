/* copy_from_user whose fixup reads the registers its entry names: a
 * UACCESS_ERR_ZERO entry with err = x6 and zero = x7, as the kernel's
 * _ASM_EXTABLE_UACCESS_ERR_ZERO(insn, fixup, x6, x7) gives them. The fixup
 * returns the bytes left only if x6 is -EFAULT and x7 is 0, else n + 1
 * (wrong-count): it passes only if the handler's register effects are
 * emulated (must pass). */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_copy_from_user_err_zero)
	add	x3, x0, x2
	mov	x6, #0
	mov	x7, #1
	cbz	x2, L(done)
L(loop):
1:	ldtrb	w4, [x1]
	strb	w4, [x0], #1
	add	x1, x1, #1
	cmp	x0, x3
	b.ne	L(loop)
L(done):
	sub	x0, x3, x0
	ret
L(fault):
	cmn	x6, #MG_EX_EFAULT	/* x6 == -EFAULT? */
	b.ne	L(wrong)
	cbnz	x7, L(wrong)
	sub	x0, x3, x0
	ret
L(wrong):
	add	x0, x2, #1
	ret
END(mg_aarch64_copy_from_user_err_zero)
	MG_EXTABLE(1b, L(fault), MG_EX_TYPE_UACCESS_ERR_ZERO, MG_EX_DATA_REG_ERR(6) | MG_EX_DATA_REG_ZERO(7))
