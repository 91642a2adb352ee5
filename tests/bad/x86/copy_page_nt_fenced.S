/* copy_page with non-temporal stores (movnti), an sfence before it
 * returns: a caller's later store, a release that publishes the page,
 * cannot become visible before the page's bytes (docs/contract.md M1).
 * The twin of bad_copy_page_nt_unfenced.S; the gate's store-order check
 * passes it. x86-64 and i386 (usercopy_x86.h). */
#include "usercopy_x86.h"

/* bad_copy_page_nt_unfenced.S builds this body under its own name,
 * without the fence. */
#ifndef NT_PAGE_NAME
#define NT_PAGE_NAME copy_page_nt_fenced
#define NT_PAGE_FENCE sfence
#endif
#define UC_XNAME(name) UC_NAME(name)

	.text
ENTRY(UC_XNAME(NT_PAGE_NAME))
	UC_ARGS2
	P(mov)	$(4096 / WORD), CX
L(loop):
	P(mov)	(SI), AX
	movnti	AX, (DI)
	P(add)	$WORD, SI
	P(add)	$WORD, DI
	P(dec)	CX
	jnz	L(loop)
	NT_PAGE_FENCE
	UC_RET
END(UC_XNAME(NT_PAGE_NAME))
