/* A riscv64 memcpy that copies 8-byte words with ld/sd whatever the
 * alignment of src and dst, then the last bytes: correct, since qemu-user
 * (and some CPUs) perform misaligned loads and stores, but each one may
 * trap or be emulated at hundreds of cycles on most boards, and kernel
 * code must make none (Linux's riscv memmove did so with lw/sw until
 * 9d1f0ec9f717). The gate's misaligned check: a finding under the kernel
 * contract, a warning under the user contract, nothing with --requires
 * misaligned_fast. Its twin, impls/riscv64/memcpy_word.S, copies words
 * only where src and dst share their alignment. */
	.text
	.globl words_any_alignment
	.type words_any_alignment, @function
words_any_alignment:
	mv	t0, a0
	li	t2, 8
1:	bltu	a2, t2, 2f
	ld	t1, 0(a1)
	sd	t1, 0(t0)
	addi	a1, a1, 8
	addi	t0, t0, 8
	addi	a2, a2, -8
	j	1b
2:	beqz	a2, 3f
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	2b
3:	ret
	.size words_any_alignment, .-words_any_alignment
	.section .note.GNU-stack,"",@progbits
