/* Copies, then moves the base of the descriptor gs selects by 64 bytes
 * with set_thread_area and restores nothing: the selector is the same, the
 * thread pointer is not (psABI-32, the Register Usage table: gs is
 * reserved for the system), and the caller's thread data is now read
 * from the wrong place. */
#include "asmdefs.h"
#include <sys/syscall.h>
	.text
ENTRY(mg_i386_bad_memcpy_moves_gs_base)
	pushl	%esi
	pushl	%edi
	pushl	%ebx
	.cfi_adjust_cfa_offset 12
	movl	16(%esp), %edi		/* d */
	movl	20(%esp), %esi		/* s */
	movl	24(%esp), %ecx		/* n */
	rep movsb
	subl	$16, %esp		/* struct user_desc */
	.cfi_adjust_cfa_offset 16
	movw	%gs, %ax
	movzwl	%ax, %eax
	shrl	$3, %eax
	movl	%eax, (%esp)		/* entry_number */
	movl	%esp, %ebx
	movl	$SYS_get_thread_area, %eax
	int	$0x80
	addl	$64, 4(%esp)		/* BUG: base_addr, the thread pointer */
	movl	$SYS_set_thread_area, %eax
	int	$0x80
	addl	$16, %esp
	.cfi_adjust_cfa_offset -16
	movl	16(%esp), %eax
	popl	%ebx
	popl	%edi
	popl	%esi
	.cfi_adjust_cfa_offset -12
	ret
END(mg_i386_bad_memcpy_moves_gs_base)
