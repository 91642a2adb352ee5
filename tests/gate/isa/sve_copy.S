/* sve_copy: a correct memcpy of SVE predicated loads and stores, as an
 * A64FX routine is. Gated without --requires sve it is the ISA audit's
 * undeclared-feature sve (chosen on a core without SVE it dies of SIGILL,
 * as glibc's BZ #28744 did); with --requires sve it passes under every qemu
 * model that has SVE. Capstone 4.0.2 decodes no SVE: the audit's SVE
 * encoding rule names it (docs/isa-audit.md).
 *
 * void *sve_copy(void *d, const void *s, size_t n): x0, x1, x2; x0 = d.
 */
	.arch	armv8.2-a+sve
	.text
	.globl	sve_copy
	.type	sve_copy, %function
sve_copy:
	mov	x3, #0
	whilelo	p0.b, x3, x2
	b.none	2f
1:	ld1b	{z0.b}, p0/z, [x1, x3]
	st1b	{z0.b}, p0, [x0, x3]
	incb	x3
	whilelo	p0.b, x3, x2
	b.first	1b
2:	ret
	.size	sve_copy, .-sve_copy
	.section .note.GNU-stack,"",%progbits
