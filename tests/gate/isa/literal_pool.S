/* literal_pool: ARMv8.0 code with a literal pool in .text whose words are
 * SVE and MOPS encodings (ld1b, cpyfp). The $d mapping symbol the
 * assembler puts before the pool says they are data: the ISA audit must
 * not read them as code (no feature needed, nothing undecodable).
 *
 * void *literal_pool(void *d, const void *s, size_t n): copies nothing
 * when n is 0, else one byte at a time; x0 = d.
 */
	.text
	.globl	literal_pool
	.type	literal_pool, %function
literal_pool:
	ldr	x9, .Lwords		/* read, and unused: the pool is data */
	mov	x3, #0
	cbz	x2, 2f
1:	ldrb	w4, [x1, x3]
	strb	w4, [x0, x3]
	add	x3, x3, #1
	cmp	x3, x2
	b.lo	1b
2:	ret
	.p2align 3
.Lwords:
	.word	0xa400a020		/* ld1b {z0.b}, p0/z, [x1] */
	.word	0x19010440		/* cpyfp [x0]!, [x1]!, x2! */
	.word	0xf8200041		/* ldadd x0, x1, [x2] (LSE) */
	.size	literal_pool, .-literal_pool
	.section .note.GNU-stack,"",%progbits
