/* An i386 memcpy called as the kernel calls its C functions, built with
 * -mregparm=3: dst in eax, src in edx, the length in ecx, dst returned in
 * eax; esi and edi, which rep movsb needs, saved around it. Declared with
 *	--convention 'args=eax,edx,ecx ret=eax'
 * it is called that way in every situation the gate makes (interrupted,
 * from a signal handler, in threads: tests/run.d/conventions.sh).
 * Written for memgate's tests. */
#include <linux/linkage.h>

SYM_FUNC_START(regparm_memcpy)
	pushl	%esi
	pushl	%edi
	movl	%eax, %edi
	movl	%edx, %esi
	rep movsb
	popl	%edi
	popl	%esi
	RET
SYM_FUNC_END(regparm_memcpy)
