/* A riscv64 memcpy that copies with vsetvli, vle8 and vse8 without
 * --requires v, written as .word (the gate assembles what is declared,
 * here RV64GC, and an assembler would refuse the mnemonics): it builds,
 * is correct where the CPU has V, and dies of SIGILL under the gate's
 * RV64GC model. */
	.text
	.globl rvv_undeclared
	.type rvv_undeclared, @function
rvv_undeclared:
	mv	t0, a0
1:	.word	0x0c367357	/* vsetvli t1, a2, e8, m8, ta, ma */
	beqz	t1, 2f
	.word	0x02058007	/* vle8.v v0, (a1) */
	.word	0x02028027	/* vse8.v v0, (t0) */
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	j	1b
2:	ret
	.size rvv_undeclared, .-rvv_undeclared
	.section .note.GNU-stack,"",@progbits
