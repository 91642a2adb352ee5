/* An i386 raw_copy_from_user(to, from, n) written as a kernel file (gated
 * with --kernel, through memgate's shim: its exception table in the
 * kernel's format), its arguments on the stack (cdecl), whose fixup
 * returns one byte fewer than it did not copy (wrong-count,
 * docs/usercopy.md; tests/run.d/repro.sh). Written for memgate's tests. */
#include <linux/linkage.h>
#include <asm/asm.h>

SYM_FUNC_START(copy_from_user_short_i386)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %ecx
	testl	%ecx, %ecx
	jz	2f
1:	movb	(%esi), %al
	movb	%al, (%edi)
	incl	%esi
	incl	%edi
	decl	%ecx
	jnz	1b
2:	movl	%ecx, %eax
	popl	%edi
	popl	%esi
	RET
3:	leal	-1(%ecx), %eax		/* BUG: one byte short of the count */
	popl	%edi
	popl	%esi
	RET
	_ASM_EXTABLE_UA(1b, 3b)
SYM_FUNC_END(copy_from_user_short_i386)
