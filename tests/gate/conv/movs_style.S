/* A copy in rep_movs_alternative's style, written as a kernel file
 * (gated with --kernel, through memgate's shim): to in rdi, from in rsi,
 * the length in rcx, the bytes not copied returned in rcx, rax its only
 * scratch register: the convention of copy_user_generic's inline assembly,
 *	--convention 'args=rdi,rsi,rcx ret=rcx clobbers=rax'
 * Built with -DCLOBBER_R8 it counts its quadwords in r8 instead, a register
 * that convention does not let it change (tests/run.d/conventions.sh);
 * with -DCOUNT_SHORT it returns one byte fewer than it did not copy, a
 * wrong-count that its standalone reproducer shows (tests/run.d/repro.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm.h>

SYM_FUNC_START(movs_style)
	cmpq	$8, %rcx
	jb	.Lbytes
#ifdef CLOBBER_R8
	movq	%rcx, %r8
	shrq	$3, %r8
#endif
.Lwords:
0:	movq	(%rsi), %rax
1:	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	subq	$8, %rcx
#ifdef CLOBBER_R8
	decq	%r8
	jnz	.Lwords
#else
	cmpq	$8, %rcx
	jae	.Lwords
#endif
.Lbytes:
	testq	%rcx, %rcx
	jz	.Ldone
2:	movb	(%rsi), %al
3:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	2b
.Ldone:
#ifdef COUNT_SHORT
	jrcxz	4f
	decq	%rcx			/* BUG: one byte short of the count */
4:
#endif
	RET

	_ASM_EXTABLE_UA(0b, .Lbytes)
	_ASM_EXTABLE_UA(1b, .Lbytes)
	_ASM_EXTABLE_UA(2b, .Ldone)
	_ASM_EXTABLE_UA(3b, .Ldone)
SYM_FUNC_END(movs_style)
