/* A 32-bit Arm copy_page written as a kernel file of arch/arm/lib (gated
 * with --kernel --arch armhf, through memgate's shim: ENTRY, ENDPROC and
 * ret as the kernel's headers have them), one word short: its last 4
 * bytes are not copied (tests/run.d/repro.sh). Written for memgate's
 * tests. */
#include <linux/linkage.h>
#include <asm/assembler.h>

ENTRY(copy_page_short_armhf)
	mov	r2, #PAGE_SIZE - 4	@ BUG: one word short
1:	ldr	r3, [r1], #4
	str	r3, [r0], #4
	subs	r2, r2, #4
	bne	1b
	ret	lr
ENDPROC(copy_page_short_armhf)
