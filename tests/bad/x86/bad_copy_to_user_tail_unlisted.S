/* copy_to_user in words (quadwords; i386: dwords), then bytes; the word
 * loop's fixup goes to the byte copy, but the byte store is missing from
 * the exception table: every fault ends there, unhandled (the kernel would
 * oops). x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

	.text
ENTRY(UC_NAME(bad_copy_to_user_tail_unlisted))
	UC_ARGS3
	P(mov)	DX, CX
	P(shr)	$WORD_SHIFT, CX
	andl	$(WORD - 1), %edx
	P(test)	CX, CX
	jz	L(tail)
L(words):
1:	P(mov)	(SI), AX
2:	P(mov)	AX, (DI)
	P(add)	$WORD, SI
	P(add)	$WORD, DI
	P(dec)	CX
	jnz	L(words)
L(tail):
	movl	%edx, %ecx
	P(test)	CX, CX
	jz	L(done)
L(bytes):
3:	movb	(SI), %al
4:	movb	%al, (DI)		/* not listed */
	P(inc)	SI
	P(inc)	DI
	P(dec)	CX
	jnz	L(bytes)
L(done):
	P(mov)	CX, AX
	UC_RET
L(word_fault):
	P(lea)	(DX,CX,WORD), CX
	jmp	L(bytes)
END(UC_NAME(bad_copy_to_user_tail_unlisted))

	MG_EXTABLE_UA(1b, L(word_fault))
	MG_EXTABLE_UA(2b, L(word_fault))
	MG_EXTABLE_UA(3b, L(done))
