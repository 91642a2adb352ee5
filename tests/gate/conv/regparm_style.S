/* An i386 copy_from_user called as the kernel calls its own C functions,
 * built with -mregparm=3 (arch/x86/Makefile): to in eax, from in edx, the
 * length in ecx, the bytes not copied returned in eax; ebx, esi, edi and
 * ebp are callee-saved there as in cdecl. Written as a kernel file (gated
 * with --kernel, through memgate's shim) and declared with
 *	--convention 'args=eax,edx,ecx ret=eax'
 * It holds each byte in bl, and saves ebx around the loop; built with
 * -DCLOBBER_EBX it does not, and ebx is a register that convention does
 * not let it change (tests/run.d/conventions.sh); with -DCOUNT_SHORT it
 * returns one byte fewer than it did not copy, a wrong-count that its
 * standalone reproducer shows (tests/run.d/repro.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm.h>

SYM_FUNC_START(regparm_style)
#ifndef CLOBBER_EBX
	pushl	%ebx
#endif
	testl	%ecx, %ecx
	jz	.Ldone
.Lbyte:
0:	movb	(%edx), %bl
1:	movb	%bl, (%eax)
	incl	%edx
	incl	%eax
	decl	%ecx
	jnz	.Lbyte
.Ldone:
	movl	%ecx, %eax	/* the bytes not copied */
#ifdef COUNT_SHORT
	jecxz	2f
	decl	%eax		/* BUG: one byte short of the count */
2:
#endif
#ifndef CLOBBER_EBX
	popl	%ebx
#endif
	RET

	_ASM_EXTABLE_UA(0b, .Ldone)
	_ASM_EXTABLE_UA(1b, .Ldone)
SYM_FUNC_END(regparm_style)
