/* Copies, then sets the fs base to 0 with arch_prctl(ARCH_SET_FS) and
 * restores nothing: fs is the thread pointer, reserved for the system
 * (psABI-64 Figure 3.4), and the caller's next access to its thread's data
 * (errno, the stack protector's canary at %fs:0x28) faults. The system
 * call rather than WRFSBASE, so that it runs where the kernel has not
 * enabled FSGSBASE too. */
#include "asmdefs.h"
#include <asm/prctl.h>
#include <sys/syscall.h>
	.text
ENTRY(mg_x86_64_bad_memcpy_clears_fs)
	movq	%rdi, %r8
	movq	%rdx, %rcx
	rep movsb
	movl	$SYS_arch_prctl, %eax
	movl	$ARCH_SET_FS, %edi
	xorl	%esi, %esi		/* BUG: the thread pointer */
	syscall
	movq	%r8, %rax
	ret
END(mg_x86_64_bad_memcpy_clears_fs)
