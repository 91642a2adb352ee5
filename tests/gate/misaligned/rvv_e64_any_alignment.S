/* A riscv64 vector memcpy that moves 64-bit elements (vle64/vse64) from
 * wherever src and dst are, then the last bytes: correct under qemu-user,
 * which performs a misaligned element access, but on hardware each such
 * element may trap or be emulated, as a scalar one may. The gate's
 * misaligned check sees them element by element: a finding under the
 * kernel contract (gate_arch.sh). Needs V (--requires v). */
	.text
	.globl rvv_e64_any_alignment
	.type rvv_e64_any_alignment, @function
rvv_e64_any_alignment:
	mv	t0, a0
1:	srli	t2, a2, 3		/* whole 8-byte elements left */
	beqz	t2, 2f
	vsetvli	t1, t2, e64, m8, ta, ma
	vle64.v	v0, (a1)
	vse64.v	v0, (t0)
	slli	t1, t1, 3
	add	a1, a1, t1
	add	t0, t0, t1
	sub	a2, a2, t1
	j	1b
2:	beqz	a2, 3f
	lbu	t1, 0(a1)
	sb	t1, 0(t0)
	addi	a1, a1, 1
	addi	t0, t0, 1
	addi	a2, a2, -1
	j	2b
3:	ret
	.size rvv_e64_any_alignment, .-rvv_e64_any_alignment
	.section .note.GNU-stack,"",@progbits
