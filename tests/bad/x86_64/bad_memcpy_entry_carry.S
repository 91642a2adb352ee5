/* Takes the count with sbb instead of mov: n - CF, one byte short when the
 * carry flag happens to be set at entry, which the ABI leaves undefined
 * (psABI-64 3.2.1: the flags but DF have no role in the calling
 * sequence). */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_entry_carry)
	movq	%rdi, %rax
	movq	%rdx, %rcx		/* mov leaves the flags as they came */
	sbbq	$0, %rcx		/* BUG: minus the entry carry */
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_entry_carry)
