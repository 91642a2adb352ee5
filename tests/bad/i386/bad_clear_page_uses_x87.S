/* A kernel clear_page that stores zero eight bytes at a time with the x87
 * unit (fldz, fstl) without kernel_fpu_begin, which on 32-bit also saves
 * the x87 state: its stack is balanced, but it overwrites one of the
 * interrupted task's x87 registers and its last-instruction pointers.
 * The kernel contract's no-FPU rule must name it.
 *
 * void mg_i386_bad_clear_page_uses_x87(void *page) */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_clear_page_uses_x87)
	movl	4(%esp), %edx
	movl	$(4096 / 8), %ecx
	fldz
1:	fstl	(%edx)
	addl	$8, %edx
	decl	%ecx
	jnz	1b
	fstp	%st(0)
	ret
END(mg_i386_bad_clear_page_uses_x87)
