/* An x86-64 raw_copy_from_user written as a kernel file (gated with
 * --kernel, through memgate's shim: its exception table in the kernel's
 * format, the SMAP brackets), whose fixup returns one byte fewer than it
 * did not copy: after a fault it says one byte more arrived than did
 * (wrong-count, docs/usercopy.md; tests/run.d/repro.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/smap.h>

SYM_FUNC_START(copy_from_user_short_x86_64)
	ASM_STAC
	movl	%edx, %ecx
	testl	%ecx, %ecx
	jz	2f
1:	movb	(%rsi), %al
	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decl	%ecx
	jnz	1b
2:	ASM_CLAC
	movl	%ecx, %eax
	RET
3:	ASM_CLAC
	leal	-1(%rcx), %eax		/* BUG: one byte short of the count */
	RET
	_ASM_EXTABLE_UA(1b, 3b)
SYM_FUNC_END(copy_from_user_short_x86_64)
