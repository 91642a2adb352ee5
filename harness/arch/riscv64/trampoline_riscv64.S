/* The RISC-V (LP64D) ABI trampoline.
 *
 * uint64_t mg_abi_call(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
 *			struct mg_abi_record *rec)
 *	a0 = fn, a1-a3 = the arguments, a4 = rec.
 *
 * Saves the caller's ra, s0-s11, fs0-fs11, gp and tp, loads a canary into
 * each of s0-s11 and fs0-fs11, moves sp to the case's alignment (the
 * record's stack_offset), puts two canary words at the callee's incoming
 * sp (the callee owns only what lies below it), sets frm and fflags to the
 * case's and, where the CPU has V, makes vtype invalid (vill: a vector
 * instruction before a vsetvl traps; the psABI promises nothing of vl and
 * vtype at entry), vstart zero and vxrm and vxsat the case's, and calls
 * fn(a0, a1, a2). Afterwards it records the registers, gp, tp, the stack
 * pointer, the two words, frm, fflags and vstart.
 * gp and tp get no canary: signal handlers rely on them (the psABI says
 * procedures should not modify them), and the harness's own handler runs
 * while the callee does; they are compared with their values at the call.
 * It trusts nothing the callee may have broken: the record is found again
 * through a global (pc-relative, not through gp), the stack pointer comes
 * back from the record, gp, tp and frm are the caller's again, and vstart
 * is zero, before it returns.
 *
 * Under the kernel contract's no-FP rule (check_fpu) it also fills the FP
 * temporaries, ft0-ft11 and fa0-fa7, with a poison (fs0-fs11 hold their
 * canaries) and clears fflags before the call, and records them after it;
 * where the CPU has V (check_vregs) it records vtype after the call (a
 * vsetvl clears vill), and where v0-v31 fit the record it fills them with a
 * poison before vtype is made invalid and records them after the call (a
 * whole-register load needs no vsetvl).
 */
#include "abi.h"
#include "asmdefs.h"

/* Our frame: the caller's registers. The callee's sp is below it, at the
 * case's alignment, where the two canary words are, then the sp of our
 * frame, for the CFI. */
#define FRAME_CANARIES	0
#define CALLER_SP_SLOT	16
#define CALL_FRAME	32
#define SAVE_RA		0
#define SAVE_S0		8	/* s0-s11 */
#define SAVE_FS0	104	/* fs0-fs11 */
#define SAVE_GP		200
#define SAVE_TP		208
#define FRAME_SIZE	224

#define CSR_VSTART	0x008
#define CSR_VCSR	0x00f

	.bss
	.p2align 3
current_record:
	.quad	0

/* The CFA while sp is the realigned one: DW_CFA_def_cfa_expression of
 *	DW_OP_breg2 (sp) CALLER_SP_SLOT; DW_OP_deref;
 *	DW_OP_plus_uconst FRAME_SIZE (224: two LEB128 bytes)
 * (no fixed offset leads back to our frame). */
#define CFA_FROM_SLOT                                                                              \
	.cfi_escape 0x0f, 6, 0x72, CALLER_SP_SLOT, 0x06, 0x23, 0xe0, 0x01

#define SAVE_S(n)	sd s##n, (SAVE_S0 + 8 * n)(sp); .cfi_rel_offset s##n, SAVE_S0 + 8 * n
#define RESTORE_S(n)	ld s##n, (SAVE_S0 + 8 * n)(sp)
#define SAVE_FS(n)	fsd fs##n, (SAVE_FS0 + 8 * n)(sp)
#define RESTORE_FS(n)	fld fs##n, (SAVE_FS0 + 8 * n)(sp)
#define PLANT_S(n)	li s##n, MG_ABI_CANARY_S(n)
#define PLANT_FS(n)	li t0, MG_ABI_CANARY_FS(n); fmv.d.x fs##n, t0
#define RECORD_S(n)	sd s##n, (MG_ABI_SAVED + 8 * n)(t0)
#define RECORD_FS(n)	fsd fs##n, (MG_ABI_FSAVED + 8 * n)(t0)
/* The FP temporaries, slot k of MG_ABI_FTEMP (ft0-ft11, then fa0-fa7). */
#define POISON_F(reg, k)	li t0, MG_ABI_POISON_FT(k); fmv.d.x reg, t0
#define RECORD_F(reg, k)	fsd reg, (MG_ABI_FTEMP + 8 * (k))(t0)
#define FTEMPS(op)                                                                                 \
	op(ft0, 0); op(ft1, 1); op(ft2, 2); op(ft3, 3); op(ft4, 4); op(ft5, 5); op(ft6, 6);        \
	op(ft7, 7); op(ft8, 8); op(ft9, 9); op(ft10, 10); op(ft11, 11); op(fa0, 12);               \
	op(fa1, 13); op(fa2, 14); op(fa3, 15); op(fa4, 16); op(fa5, 17); op(fa6, 18); op(fa7, 19)

	.text
ENTRY(mg_abi_call)
	/* The CFI follows the saves, so that a debugger stopped in the
	 * callee unwinds through here to the C caller. */
	addi	sp, sp, -FRAME_SIZE
	.cfi_def_cfa_offset FRAME_SIZE
	sd	ra, SAVE_RA(sp)
	.cfi_rel_offset ra, SAVE_RA
	SAVE_S(0); SAVE_S(1); SAVE_S(2); SAVE_S(3); SAVE_S(4); SAVE_S(5)
	SAVE_S(6); SAVE_S(7); SAVE_S(8); SAVE_S(9); SAVE_S(10); SAVE_S(11)
	SAVE_FS(0); SAVE_FS(1); SAVE_FS(2); SAVE_FS(3); SAVE_FS(4); SAVE_FS(5)
	SAVE_FS(6); SAVE_FS(7); SAVE_FS(8); SAVE_FS(9); SAVE_FS(10); SAVE_FS(11)
	sd	gp, SAVE_GP(sp)
	sd	tp, SAVE_TP(sp)

	lla	t0, current_record
	sd	a4, 0(t0)
	/* The callee's sp is the case's alignment (R6 in docs/contract.md):
	 * aligned down to 64, then raised by the record's stack_offset,
	 * whatever our caller's frame; the return restores our sp from the
	 * record. */
	mv	t1, sp
	sd	t1, MG_ABI_SP_CALLER(a4)
	addi	t2, t1, -(CALL_FRAME + 64)
	andi	t2, t2, -64
	lwu	t3, MG_ABI_STACK_OFFSET(a4)
	add	t2, t2, t3
	sd	t1, CALLER_SP_SLOT(t2)
	mv	sp, t2
	CFA_FROM_SLOT
	sd	t2, MG_ABI_SP_BEFORE(a4)
	li	t3, MG_ABI_CANARY_FRAME0
	sd	t3, FRAME_CANARIES(sp)
	li	t3, MG_ABI_CANARY_FRAME1
	sd	t3, FRAME_CANARIES + 8(sp)
	sd	gp, MG_ABI_GP_BEFORE(a4)
	sd	tp, MG_ABI_TP_BEFORE(a4)
	ld	t3, MG_ABI_FRM_BEFORE(a4)
	fsrm	t3
	ld	t3, MG_ABI_FFLAGS_ENTRY(a4)
	fsflags	t3
	lwu	t3, MG_ABI_CHECK_VECTOR(a4)
	beqz	t3, 1f
	lwu	t3, MG_ABI_CHECK_VREGS(a4)
	li	t4, MG_ABI_VREGS_ALL
	bne	t3, t4, 5f
	vsetvli	t4, zero, e8, m8, ta, ma
	li	t3, MG_ABI_POISON_V
	vmv.v.x	v0, t3
	vmv.v.x	v8, t3
	vmv.v.x	v16, t3
	vmv.v.x	v24, t3
5:	li	t3, -1
	slli	t3, t3, 63		/* vtype.vill */
	vsetvl	t4, zero, t3
	csrwi	CSR_VSTART, 0
	ld	t3, MG_ABI_VCSR_ENTRY(a4)
	csrw	CSR_VCSR, t3
1:	lwu	t3, MG_ABI_CHECK_FPU(a4)
	beqz	t3, 3f
	FTEMPS(POISON_F)
	csrwi	fflags, 0
3:
	mv	t6, a0
	mv	a0, a1
	mv	a1, a2
	mv	a2, a3
	PLANT_FS(0); PLANT_FS(1); PLANT_FS(2); PLANT_FS(3); PLANT_FS(4); PLANT_FS(5)
	PLANT_FS(6); PLANT_FS(7); PLANT_FS(8); PLANT_FS(9); PLANT_FS(10); PLANT_FS(11)
	PLANT_S(0); PLANT_S(1); PLANT_S(2); PLANT_S(3); PLANT_S(4); PLANT_S(5)
	PLANT_S(6); PLANT_S(7); PLANT_S(8); PLANT_S(9); PLANT_S(10); PLANT_S(11)
	jalr	t6

	lla	t0, current_record
	ld	t0, 0(t0)
	sd	sp, MG_ABI_SP_AFTER(t0)
	ld	t1, MG_ABI_SP_BEFORE(t0)
	mv	sp, t1
	RECORD_S(0); RECORD_S(1); RECORD_S(2); RECORD_S(3); RECORD_S(4); RECORD_S(5)
	RECORD_S(6); RECORD_S(7); RECORD_S(8); RECORD_S(9); RECORD_S(10); RECORD_S(11)
	RECORD_FS(0); RECORD_FS(1); RECORD_FS(2); RECORD_FS(3); RECORD_FS(4); RECORD_FS(5)
	RECORD_FS(6); RECORD_FS(7); RECORD_FS(8); RECORD_FS(9); RECORD_FS(10); RECORD_FS(11)
	sd	gp, MG_ABI_GP_AFTER(t0)
	sd	tp, MG_ABI_TP_AFTER(t0)
	ld	t1, FRAME_CANARIES(sp)
	sd	t1, MG_ABI_FRAME(t0)
	ld	t1, FRAME_CANARIES + 8(sp)
	sd	t1, MG_ABI_FRAME + 8(t0)
	frrm	t1
	sd	t1, MG_ABI_FRM_AFTER(t0)
	ld	t1, MG_ABI_FRM_CALLER(t0)
	fsrm	t1
	frflags	t1
	sd	t1, MG_ABI_FFLAGS_AFTER(t0)
	csrwi	fflags, 0
	lwu	t1, MG_ABI_CHECK_VECTOR(t0)
	beqz	t1, 2f
	csrr	t1, CSR_VSTART
	sd	t1, MG_ABI_VSTART_AFTER(t0)
	csrwi	CSR_VSTART, 0
	csrwi	CSR_VCSR, 0
2:	lwu	t1, MG_ABI_CHECK_FPU(t0)
	beqz	t1, 4f
	FTEMPS(RECORD_F)
	lwu	t1, MG_ABI_CHECK_VREGS(t0)
	beqz	t1, 4f
	csrr	t2, vtype
	sd	t2, MG_ABI_VTYPE_AFTER(t0)
	li	t2, MG_ABI_VREGS_ALL
	bne	t1, t2, 4f
	vsetvli	t1, zero, e8, m8, ta, ma	/* the stores below, whatever vtype was */
	csrr	t2, vlenb
	slli	t2, t2, 3		/* a group of eight registers */
	addi	t1, t0, MG_ABI_VREGS
	vs8r.v	v0, (t1)
	add	t1, t1, t2
	vs8r.v	v8, (t1)
	add	t1, t1, t2
	vs8r.v	v16, (t1)
	add	t1, t1, t2
	vs8r.v	v24, (t1)
4:	ld	t1, MG_ABI_SP_CALLER(t0)
	mv	sp, t1
	.cfi_def_cfa sp, FRAME_SIZE
	ld	gp, SAVE_GP(sp)
	ld	tp, SAVE_TP(sp)
	RESTORE_FS(0); RESTORE_FS(1); RESTORE_FS(2); RESTORE_FS(3); RESTORE_FS(4); RESTORE_FS(5)
	RESTORE_FS(6); RESTORE_FS(7); RESTORE_FS(8); RESTORE_FS(9); RESTORE_FS(10); RESTORE_FS(11)
	RESTORE_S(0); RESTORE_S(1); RESTORE_S(2); RESTORE_S(3); RESTORE_S(4); RESTORE_S(5)
	RESTORE_S(6); RESTORE_S(7); RESTORE_S(8); RESTORE_S(9); RESTORE_S(10); RESTORE_S(11)
	ld	ra, SAVE_RA(sp)
	addi	sp, sp, FRAME_SIZE
	.cfi_def_cfa_offset 0
	.cfi_same_value ra
	.cfi_same_value s0
	.cfi_same_value s1
	.cfi_same_value s2
	.cfi_same_value s3
	.cfi_same_value s4
	.cfi_same_value s5
	.cfi_same_value s6
	.cfi_same_value s7
	.cfi_same_value s8
	.cfi_same_value s9
	.cfi_same_value s10
	.cfi_same_value s11
	ret
END(mg_abi_call)
