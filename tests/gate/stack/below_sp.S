/* below_sp: a correct byte copy that keeps its counter in a scratch slot
 * at [sp, #-16], below the stack pointer, without moving it: the region
 * below sp is no one's (AAPCS64 6.4.5.1), and a signal delivered there
 * (Linux puts its frame below sp) overwrites the counter. qemu-user cannot
 * step the routine to show it, so the gate's static below-sp check alone
 * rejects it (docs/contract.md, A4); below_sp_frame.S, its twin, moves sp
 * first.
 *
 * void *below_sp(void *d, const void *s, size_t n): x0, x1, x2.
 */
#ifndef COPY
#define COPY below_sp
#endif
	.text
	.globl	COPY
	.type	COPY, %function
	.p2align 4
COPY:
#ifdef FRAME
	sub	sp, sp, #16
#define SLOT [sp]
#else
#define SLOT [sp, #-16]
#endif
	str	xzr, SLOT
1:	ldr	x3, SLOT
	cmp	x3, x2
	b.hs	2f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	str	x3, SLOT
	b	1b
2:
#ifdef FRAME
	add	sp, sp, #16
#endif
	ret
	.size	COPY, .-COPY
	.section .note.GNU-stack,"",%progbits
