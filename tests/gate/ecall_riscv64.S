/* A riscv64 memcpy that calls getpid with ecall before copying: refused at build time ("makes system calls"). */
	.text
	.globl ecall_riscv64
	.type ecall_riscv64, @function
ecall_riscv64:
	mv	t0, a0
	li	a7, 172
	ecall
	mv	a0, t0
	beqz	a2, 2f
1:	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	bnez	a2, 1b
2:	ret
	.size ecall_riscv64, .-ecall_riscv64
	.section .note.GNU-stack,"",@progbits
