/* memset with a movnti loop for the words and byte stores for the tail,
 * an sfence before it returns (docs/contract.md M1): the twin of
 * bad_memset_nt_unfenced.S; the gate's store-order check passes it.
 * x86-64 and i386 (usercopy_x86.h: dst in DI, c in SI, n in DX). */
#include "usercopy_x86.h"

/* bad_memset_nt_unfenced.S builds this body under its own name, without
 * the fence. */
#ifndef NT_MEMSET_NAME
#define NT_MEMSET_NAME memset_nt_fenced
#define NT_MEMSET_FENCE sfence
#endif
#define UC_XNAME(name) UC_NAME(name)

	.text
ENTRY(UC_XNAME(NT_MEMSET_NAME))
	UC_ARGS3
	/* c's low byte in every byte of AX */
	P(mov)	SI, AX
	P(and)	$0xff, AX
	P(mov)	AX, SI
	P(shl)	$8, SI
	P(or)	SI, AX
	P(mov)	AX, SI
	P(shl)	$16, SI
	P(or)	SI, AX
#if WORD == 8
	P(mov)	AX, SI
	P(shl)	$32, SI
	P(or)	SI, AX
#endif
	P(mov)	DX, CX
L(words):
	P(cmp)	$WORD, CX
	jb	L(tail)
	movnti	AX, (DI)
	P(add)	$WORD, DI
	P(sub)	$WORD, CX
	jmp	L(words)
L(tail):
	P(test)	CX, CX
	jz	L(done)
	movb	%al, (DI)
	P(inc)	DI
	P(dec)	CX
	jmp	L(tail)
L(done):
	NT_MEMSET_FENCE
	/* dst: DI has moved n bytes on */
	P(mov)	DI, AX
	P(sub)	DX, AX
	UC_RET
END(UC_XNAME(NT_MEMSET_NAME))
