/* no_landing_pad: a correct byte-loop memcpy in an object whose GNU
 * property note says BTI (every function has its landing pad), but whose
 * entry starts with its first load instead of bti c: where BTI is
 * enforced (the kernel maps a BTI-marked program's code as guarded pages)
 * an indirect call to it dies of SIGILL. The isa check's landing-pad rule
 * alone rejects it (docs/contract.md, A16); landing_pad.S is its twin.
 *
 * void *no_landing_pad(void *d, const void *s, size_t n): x0, x1, x2.
 */
#ifndef COPY
#define COPY no_landing_pad
#endif
	.text
	.globl	COPY
	.type	COPY, %function
	.p2align 4
COPY:
#ifdef PAD
	PAD
#endif
	mov	x3, #0
1:	cmp	x3, x2
	b.hs	2f
	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
	.size	COPY, .-COPY

	/* GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI (bit 0). */
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4, 16, 5		/* name size, descriptor size, NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.word	0xc0000000, 4, 1, 0	/* the property, its size, BTI, padding */
	.popsection
	.section .note.GNU-stack,"",%progbits
