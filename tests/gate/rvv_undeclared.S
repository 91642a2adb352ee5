/* A riscv64 memcpy that copies with vsetvli, vle8 and vse8 without
 * --requires v, written as .word (the gate assembles what is declared,
 * here RV64GC, and an assembler would refuse the mnemonics): it builds,
 * is correct where the CPU has V, and is the ISA audit's
 * undeclared-feature v. rvv_past_the_audit.S includes it with
 * PAST_THE_AUDIT defined. */
#ifndef NAME
#define NAME rvv_undeclared
#endif
	.text
	.globl NAME
	.type NAME, @function
NAME:
	mv	t0, a0
#ifdef PAST_THE_AUDIT
	j	1f
	.half	0x001f, 0, 0	/* a 48-bit encoding's first parcel, never run */
#endif
1:	.word	0x0c367357	/* vsetvli t1, a2, e8, m8, ta, ma */
	beqz	t1, 2f
	.word	0x02058007	/* vle8.v v0, (a1) */
	.word	0x02028027	/* vse8.v v0, (t0) */
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	j	1b
2:	ret
	.size NAME, .-NAME
	.section .note.GNU-stack,"",@progbits
