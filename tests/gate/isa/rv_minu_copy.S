/* rv_minu_copy: a correct memcpy that copies up to 8 bytes a round, the
 * round's count min(n, 8) by Zbb's minu (written as .word: the gate
 * assembles RV64GC and what --requires declares). Gated without
 * --requires zbb it is the ISA audit's undeclared-feature zbb; with it,
 * accepted. A zbc clmul and a zicboz cbo.zero after its ret (never run)
 * are what the audit cannot judge: tests/run.d/isa.sh assembles them in
 * with -DBEYOND.
 *
 * void *rv_minu_copy(void *d, const void *s, size_t n): a0, a1, a2; a0 = d. */
	.text
	.globl	rv_minu_copy
	.type	rv_minu_copy, @function
rv_minu_copy:
	mv	t0, a0
	li	t3, 8
1:	beqz	a2, 3f
	.word	0x0bc65333	/* minu t1, a2, t3 */
	sub	a2, a2, t1
2:	lbu	t2, 0(a1)
	sb	t2, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	t1, t1, -1
	bnez	t1, 2b
	j	1b
3:	ret
#ifdef BEYOND
	.word	0x0ac59533	/* clmul a0, a1, a2 (zbc) */
	.word	0x0045200f	/* cbo.zero (a0) (zicboz) */
#endif
	.size	rv_minu_copy, .-rv_minu_copy
	.section .note.GNU-stack,"",@progbits
