/* Takes its count with sbb instead of mov: n - CF, one byte short when the
 * carry flag happens to be set at entry, which the ABI leaves undefined
 * (psABI-32 2.2.1). */
#include "asmdefs.h"
	.text
ENTRY(mg_i386_bad_memcpy_entry_carry)
	pushl	%esi
	pushl	%edi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %ecx		/* mov leaves the flags as they came */
	movl	%edi, %eax
	sbbl	$0, %ecx		/* BUG: minus the entry carry */
	rep movsb
	popl	%edi
	popl	%esi
	ret
END(mg_i386_bad_memcpy_entry_carry)
