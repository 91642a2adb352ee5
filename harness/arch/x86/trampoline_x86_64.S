/* The x86-64 ABI trampoline.
 *
 * uint64_t mg_abi_call(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
 *			struct mg_abi_record *rec)
 *
 * Saves the caller's callee-saved registers, loads a canary into each
 * (rbx, rbp, r12-r15), moves the stack pointer to the case's alignment
 * (the record's stack_offset), puts two canary words on the stack right
 * above the return address the call pushes, and calls fn(a0, a1, a2).
 * When the record asks for it, it enters with the case's floating-point
 * environment (MXCSR and the x87 environment) rather than the caller's.
 * Afterwards it records the registers, the stack pointer, rflags (DF),
 * MXCSR, the x87 control word, the two stack words and, when the record
 * asks for it, XINUSE (which the CPU must have).
 * Under the kernel contract's no-FPU rule (check_fpu) it also poisons the
 * x87 registers and resets the x87 unit, fills xmm0-15 (and xmm16-31 with AVX-512) with a poison
 * pattern and saves an FXSAVE image before the call and another after it,
 * plus xmm16-31: kernel code that touches any of them without
 * kernel_fpu_begin corrupts the interrupted task's registers.
 * Last it compares fs, the thread pointer, with the record's, and puts
 * the thread's back if the call changed it.
 * With a register convention of the routine's own (the record's conv),
 * every general register but rsp enters as the record's regs_in says, the
 * arguments and canaries there, and every one is stored in regs_out after
 * the call; the result is regs_out[conv_ret] (rax for the C convention).
 * It trusts nothing the callee may have broken: the record is found again
 * through a global, and the stack pointer is restored from the record.
 */
#include "abi.h"
#include "asmdefs.h"
#include "cfi_push.h"

#include <asm/prctl.h>
#include <sys/syscall.h>

	.bss
	.p2align 3
current_record:
	.quad	0
current_fn:			/* the callee: every register may be its argument */
	.quad	0
scratch_r11:			/* r11 as the call left it, while r11 finds the record */
	.quad	0

	.section .rodata
	.p2align 4
fpu_poison:
	.quad	0x5a5a5a5a5a5a5a5a, 0xa5a5a5a5a5a5a5a5

/* The six saved registers, and our frame at the call: the two canary
 * words, then where our rsp after the pushes is kept. */
#define SAVED_SIZE	48
#define CALLER_SP_SLOT	16
#define CALL_FRAME	24

/* The CFA while rsp is the realigned one, `pushed` bytes below where it
 * is at the call: DW_CFA_def_cfa_expression of
 *	DW_OP_breg7 (rsp) CALLER_SP_SLOT + pushed; DW_OP_deref;
 *	DW_OP_plus_uconst SAVED_SIZE + 8 (the saved registers, the return address)
 * (each operand fits one LEB128 byte). */
#define CFA_FROM_SLOT(pushed)                                                                      \
	.cfi_escape 0x0f, 5, 0x77, CALLER_SP_SLOT + (pushed), 0x06, 0x23, SAVED_SIZE + 8

	.text
ENTRY(mg_abi_call)
	/* The CFI follows the pushes, so that a debugger stopped in the
	 * callee unwinds through here to the C caller. */
	MG_SAVE_CALLEE_SAVED
	/* The callee's stack alignment is the case's (X9, XK4 in
	 * docs/contract.md): rsp is aligned down to 64, then raised by the
	 * record's stack_offset, so that at the call rsp mod 64 is that
	 * offset, whatever our caller's frame. Our frame there: the two
	 * canaries, then our rsp after the pushes, which the CFI reads to
	 * find the caller (no fixed offset leads back to it); the return
	 * restores rsp from the record. */
	movq	%rsp, MG_ABI_SP_CALLER(%r8)
	leaq	-(CALL_FRAME + 64)(%rsp), %rax
	andq	$-64, %rax
	movl	MG_ABI_STACK_OFFSET(%r8), %r10d
	addq	%r10, %rax
	movq	%rsp, CALLER_SP_SLOT(%rax)
	movq	%rax, %rsp
	CFA_FROM_SLOT(0)
	movq	%r8, current_record(%rip)
	/* The caller's MXCSR and x87 control word are not read here: they
	 * are constant, and the record arrives with them (fnstcw is slow). */
	movabsq	$MG_ABI_CANARY_FRAME0, %rax
	movq	%rax, 0(%rsp)
	movabsq	$MG_ABI_CANARY_FRAME1, %rax
	movq	%rax, 8(%rsp)
	cmpl	$0, mg_abi_has_avx(%rip)
	je	1f
	vzeroupper			/* so dirty upper state afterwards is the callee's */
1:	cmpl	$0, MG_ABI_CHECK_FPU(%r8)
	je	5f
	/* Every x87 register poisoned, then an empty x87 stack, its
	 * pointers zero: FNINIT leaves the registers' contents. */
	fninit
	.rept	8
	fldl	fpu_poison(%rip)
	.endr
	fninit
	fldcw	MG_ABI_FPUCW_BEFORE(%r8)
	movdqa	fpu_poison(%rip), %xmm0
	movdqa	fpu_poison(%rip), %xmm1
	movdqa	fpu_poison(%rip), %xmm2
	movdqa	fpu_poison(%rip), %xmm3
	movdqa	fpu_poison(%rip), %xmm4
	movdqa	fpu_poison(%rip), %xmm5
	movdqa	fpu_poison(%rip), %xmm6
	movdqa	fpu_poison(%rip), %xmm7
	movdqa	fpu_poison(%rip), %xmm8
	movdqa	fpu_poison(%rip), %xmm9
	movdqa	fpu_poison(%rip), %xmm10
	movdqa	fpu_poison(%rip), %xmm11
	movdqa	fpu_poison(%rip), %xmm12
	movdqa	fpu_poison(%rip), %xmm13
	movdqa	fpu_poison(%rip), %xmm14
	movdqa	fpu_poison(%rip), %xmm15
	cmpl	$0, mg_abi_has_avx512(%rip)
	je	6f
	vmovdqa64	fpu_poison(%rip), %xmm16
	vmovdqa64	fpu_poison(%rip), %xmm17
	vmovdqa64	fpu_poison(%rip), %xmm18
	vmovdqa64	fpu_poison(%rip), %xmm19
	vmovdqa64	fpu_poison(%rip), %xmm20
	vmovdqa64	fpu_poison(%rip), %xmm21
	vmovdqa64	fpu_poison(%rip), %xmm22
	vmovdqa64	fpu_poison(%rip), %xmm23
	vmovdqa64	fpu_poison(%rip), %xmm24
	vmovdqa64	fpu_poison(%rip), %xmm25
	vmovdqa64	fpu_poison(%rip), %xmm26
	vmovdqa64	fpu_poison(%rip), %xmm27
	vmovdqa64	fpu_poison(%rip), %xmm28
	vmovdqa64	fpu_poison(%rip), %xmm29
	vmovdqa64	fpu_poison(%rip), %xmm30
	vmovdqa64	fpu_poison(%rip), %xmm31
6:	fxsave	MG_ABI_FX_BEFORE(%r8)
5:	cmpl	$0, MG_ABI_CHECK_X87(%r8)
	je	9f
	emms				/* in x87 mode, as the ABI promises at entry */
9:	cmpl	$0, MG_ABI_SET_FPENV(%r8)
	je	11f
	/* The case's floating-point environment (C17, X6): rounding, flush
	 * and exception masks, status flags set or clear, as a caller may
	 * run with them. FLDENV (for the x87 status flags) costs several
	 * times FLDCW, so only the environments with flags take it. */
	ldmxcsr	MG_ABI_MXCSR_BEFORE(%r8)
	cmpl	$MG_ABI_FPENV_WHOLE, MG_ABI_SET_FPENV(%r8)
	je	13f
	fldcw	MG_ABI_FPUCW_BEFORE(%r8)
	jmp	11f
13:	movq	MG_ABI_FPENV_IMAGE(%r8), %rax
	fldenv	(%rax)
11:	movq	%rdi, current_fn(%rip)
	movq	%rsp, MG_ABI_SP_BEFORE(%r8)
	cmpl	$0, MG_ABI_CONV(%r8)
	jne	21f
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movabsq	$MG_ABI_CANARY_RBX, %rbx
	movabsq	$MG_ABI_CANARY_RBP, %rbp
	movabsq	$MG_ABI_CANARY_R12, %r12
	movabsq	$MG_ABI_CANARY_R13, %r13
	movabsq	$MG_ABI_CANARY_R14, %r14
	movabsq	$MG_ABI_CANARY_R15, %r15
	cmpl	$0, MG_ABI_SET_FLAGS(%r8)
	je	10f			/* taken: CF, SF, OF clear, ZF set */
	pushfq				/* or every arithmetic flag set (TF kept) */
	CFA_FROM_SLOT(8)
	orq	$0x8d5, (%rsp)
	popfq
	CFA_FROM_SLOT(0)
	jmp	10f
	/* A convention of the routine's own: every register but rsp from
	 * regs_in, the flags set first (a mov leaves them), rax last. */
21:	cmpl	$0, MG_ABI_SET_FLAGS(%r8)
	je	22f
	pushfq
	CFA_FROM_SLOT(8)
	orq	$0x8d5, (%rsp)
	popfq
	CFA_FROM_SLOT(0)
22:	movq	%r8, %rax
	movq	MG_ABI_REGS_IN+8*1(%rax), %rcx
	movq	MG_ABI_REGS_IN+8*2(%rax), %rdx
	movq	MG_ABI_REGS_IN+8*3(%rax), %rbx
	movq	MG_ABI_REGS_IN+8*5(%rax), %rbp
	movq	MG_ABI_REGS_IN+8*6(%rax), %rsi
	movq	MG_ABI_REGS_IN+8*7(%rax), %rdi
	movq	MG_ABI_REGS_IN+8*8(%rax), %r8
	movq	MG_ABI_REGS_IN+8*9(%rax), %r9
	movq	MG_ABI_REGS_IN+8*10(%rax), %r10
	movq	MG_ABI_REGS_IN+8*11(%rax), %r11
	movq	MG_ABI_REGS_IN+8*12(%rax), %r12
	movq	MG_ABI_REGS_IN+8*13(%rax), %r13
	movq	MG_ABI_REGS_IN+8*14(%rax), %r14
	movq	MG_ABI_REGS_IN+8*15(%rax), %r15
	movq	MG_ABI_REGS_IN+8*0(%rax), %rax
10:	call	*current_fn(%rip)
	.globl	mg_abi_call_returned
mg_abi_call_returned:		/* where a stepped call leaves fn (step.h) */

	/* Every register as the call left it, for a convention of the
	 * routine's own (movs only: the flags are recorded below), and the
	 * result from the register it names (rax by default). */
	movq	%r11, scratch_r11(%rip)
	movq	current_record(%rip), %r11
	movq	%rax, MG_ABI_REGS_OUT+8*0(%r11)
	movq	%rcx, MG_ABI_REGS_OUT+8*1(%r11)
	movq	%rdx, MG_ABI_REGS_OUT+8*2(%r11)
	movq	%rbx, MG_ABI_REGS_OUT+8*3(%r11)
	movq	%rbp, MG_ABI_REGS_OUT+8*5(%r11)
	movq	%rsi, MG_ABI_REGS_OUT+8*6(%r11)
	movq	%rdi, MG_ABI_REGS_OUT+8*7(%r11)
	movq	%r8, MG_ABI_REGS_OUT+8*8(%r11)
	movq	%r9, MG_ABI_REGS_OUT+8*9(%r11)
	movq	%r10, MG_ABI_REGS_OUT+8*10(%r11)
	movq	scratch_r11(%rip), %rax
	movq	%rax, MG_ABI_REGS_OUT+8*11(%r11)
	movq	%r12, MG_ABI_REGS_OUT+8*12(%r11)
	movq	%r13, MG_ABI_REGS_OUT+8*13(%r11)
	movq	%r14, MG_ABI_REGS_OUT+8*14(%r11)
	movq	%r15, MG_ABI_REGS_OUT+8*15(%r11)
	movl	MG_ABI_CONV_RET(%r11), %eax
	movq	MG_ABI_REGS_OUT(%r11,%rax,8), %rax
	movq	%rsp, MG_ABI_SP_AFTER(%r11)
	movq	MG_ABI_SP_BEFORE(%r11), %rsp
	movq	%rbx, MG_ABI_SAVED+0(%r11)
	movq	%rbp, MG_ABI_SAVED+8(%r11)
	movq	%r12, MG_ABI_SAVED+16(%r11)
	movq	%r13, MG_ABI_SAVED+24(%r11)
	movq	%r14, MG_ABI_SAVED+32(%r11)
	movq	%r15, MG_ABI_SAVED+40(%r11)
	/* Stored first and read back last: a load right after these stores
	 * waits for them (half a nanosecond a call here). */
	stmxcsr	MG_ABI_MXCSR_AFTER(%r11)
	fnstcw	MG_ABI_FPUCW_AFTER(%r11)
	pushfq
	CFA_FROM_SLOT(8)
	popq	MG_ABI_FLAGS(%r11)
	CFA_FROM_SLOT(0)
	cld
	movq	0(%rsp), %rcx
	movq	%rcx, MG_ABI_FRAME(%r11)
	movq	8(%rsp), %rcx
	movq	%rcx, MG_ABI_FRAME+8(%r11)
	cmpl	$0, MG_ABI_CHECK_FPU(%r11)
	je	7f
	fxsave	MG_ABI_FX_AFTER(%r11)
	fninit				/* whatever the callee left on the x87 stack */
	fldcw	MG_ABI_FPUCW_CALLER(%r11)
	cmpl	$0, mg_abi_has_avx512(%rip)
	je	7f
	vmovdqu64	%xmm16, MG_ABI_HI16_AFTER+0(%r11)
	vmovdqu64	%xmm17, MG_ABI_HI16_AFTER+16(%r11)
	vmovdqu64	%xmm18, MG_ABI_HI16_AFTER+32(%r11)
	vmovdqu64	%xmm19, MG_ABI_HI16_AFTER+48(%r11)
	vmovdqu64	%xmm20, MG_ABI_HI16_AFTER+64(%r11)
	vmovdqu64	%xmm21, MG_ABI_HI16_AFTER+80(%r11)
	vmovdqu64	%xmm22, MG_ABI_HI16_AFTER+96(%r11)
	vmovdqu64	%xmm23, MG_ABI_HI16_AFTER+112(%r11)
	vmovdqu64	%xmm24, MG_ABI_HI16_AFTER+128(%r11)
	vmovdqu64	%xmm25, MG_ABI_HI16_AFTER+144(%r11)
	vmovdqu64	%xmm26, MG_ABI_HI16_AFTER+160(%r11)
	vmovdqu64	%xmm27, MG_ABI_HI16_AFTER+176(%r11)
	vmovdqu64	%xmm28, MG_ABI_HI16_AFTER+192(%r11)
	vmovdqu64	%xmm29, MG_ABI_HI16_AFTER+208(%r11)
	vmovdqu64	%xmm30, MG_ABI_HI16_AFTER+224(%r11)
	vmovdqu64	%xmm31, MG_ABI_HI16_AFTER+240(%r11)
7:	/* Give the caller its own control state back if the call left
	 * another, the case's or the callee's (loading them costs more than
	 * comparing); and no x87 status flags of the case's environment. */
	movl	MG_ABI_MXCSR_AFTER(%r11), %ecx
	cmpl	MG_ABI_MXCSR_CALLER(%r11), %ecx
	je	3f
	ldmxcsr	MG_ABI_MXCSR_CALLER(%r11)
3:	cmpl	$MG_ABI_FPENV_WHOLE, MG_ABI_SET_FPENV(%r11)
	jne	12f
	fnclex
12:	movzwl	MG_ABI_FPUCW_AFTER(%r11), %ecx
	cmpw	MG_ABI_FPUCW_CALLER(%r11), %cx
	je	4f
	fldcw	MG_ABI_FPUCW_CALLER(%r11)
4:	cmpl	$0, MG_ABI_CHECK_X87(%r11)
	je	8f
	/* Back in x87 mode, one push fits; after MMX code without emms every
	 * register is tagged valid, and it overflows the stack (SF, C1). */
	fnclex
	fld1
	fnstsw	MG_ABI_FPUSW_AFTER(%r11)
	fstp	%st(0)
	emms
	fnclex
8:	cmpl	$0, MG_ABI_READ_XINUSE(%r11)
	je	2f
	movq	%rax, %r10
	movl	$1, %ecx
	xgetbv
	movl	%eax, MG_ABI_XINUSE(%r11)
	movl	%edx, MG_ABI_XINUSE+4(%r11)
	movq	%r10, %rax
2:	/* fs is the thread pointer, reserved for the system (X13): its
	 * selector, and its base where RDFSBASE reads it (else, on the
	 * sampled calls, arch_prctl); the caller's back if the call changed
	 * either, before any C code reads its thread's data through it. */
	movw	%fs, MG_ABI_FS_AFTER(%r11)
	movzwl	MG_ABI_FS_AFTER(%r11), %ecx
	cmpw	MG_ABI_FS_BEFORE(%r11), %cx
	je	16f
	movw	MG_ABI_FS_BEFORE(%r11), %fs	/* may zero the base: restored below */
	jmp	18f
16:	cmpl	$0, mg_abi_has_fsgsbase(%rip)
	je	17f
	rdfsbase %rcx
	movq	%rcx, MG_ABI_FSBASE_AFTER(%r11)
	cmpq	MG_ABI_FSBASE_BEFORE(%r11), %rcx
	je	20f
	jmp	18f
17:	cmpl	$0, MG_ABI_CHECK_FS(%r11)
	je	20f
	movq	%rax, %r10
	movl	$SYS_arch_prctl, %eax
	movl	$ARCH_GET_FS, %edi
	leaq	MG_ABI_FSBASE_AFTER(%r11), %rsi
	syscall				/* clobbers rcx and r11 */
	movq	current_record(%rip), %r11
	movq	%r10, %rax
	movq	MG_ABI_FSBASE_AFTER(%r11), %rcx
	cmpq	MG_ABI_FSBASE_BEFORE(%r11), %rcx
	je	20f
18:	cmpl	$0, mg_abi_has_fsgsbase(%rip)
	je	19f
	movq	MG_ABI_FSBASE_BEFORE(%r11), %rcx
	wrfsbase %rcx
	jmp	20f
19:	movq	%rax, %r10
	movl	$SYS_arch_prctl, %eax
	movl	$ARCH_SET_FS, %edi
	movq	MG_ABI_FSBASE_BEFORE(%r11), %rsi
	syscall
	movq	current_record(%rip), %r11
	movq	%r10, %rax
20:	movq	MG_ABI_SP_CALLER(%r11), %rsp
	.cfi_def_cfa %rsp, SAVED_SIZE + 8
	MG_RESTORE_CALLEE_SAVED
	ret
END(mg_abi_call)

/* void mg_abi_call_regs(const void *fn, uint64_t regs[16])
 *
 * A direct call with a register convention of the routine's own (abi.h):
 * every general register but rsp enters as regs[] says (in the order of
 * MG_ABI_GPR_NAMES), and leaves its value there after the call. Only the
 * stack holds its state, so a signal handler or another thread may call it
 * while a call through mg_abi_call is under way; it checks nothing. */
ENTRY(mg_abi_call_regs)
	MG_SAVE_CALLEE_SAVED
	pushq	%rsi			/* 16(%rsp) at the call: regs */
	.cfi_adjust_cfa_offset 8
	pushq	%rdi			/* 8(%rsp): fn */
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp		/* rsp a multiple of 16 at the call */
	.cfi_adjust_cfa_offset 8
	movq	%rsi, %rax
	movq	8*1(%rax), %rcx
	movq	8*2(%rax), %rdx
	movq	8*3(%rax), %rbx
	movq	8*5(%rax), %rbp
	movq	8*6(%rax), %rsi
	movq	8*7(%rax), %rdi
	movq	8*8(%rax), %r8
	movq	8*9(%rax), %r9
	movq	8*10(%rax), %r10
	movq	8*11(%rax), %r11
	movq	8*12(%rax), %r12
	movq	8*13(%rax), %r13
	movq	8*14(%rax), %r14
	movq	8*15(%rax), %r15
	movq	8*0(%rax), %rax
	call	*8(%rsp)
	xchgq	%rax, 16(%rsp)		/* rax: regs; the callee's rax on the stack */
	movq	%rcx, 8*1(%rax)
	movq	%rdx, 8*2(%rax)
	movq	%rbx, 8*3(%rax)
	movq	%rbp, 8*5(%rax)
	movq	%rsi, 8*6(%rax)
	movq	%rdi, 8*7(%rax)
	movq	%r8, 8*8(%rax)
	movq	%r9, 8*9(%rax)
	movq	%r10, 8*10(%rax)
	movq	%r11, 8*11(%rax)
	movq	%r12, 8*12(%rax)
	movq	%r13, 8*13(%rax)
	movq	%r14, 8*14(%rax)
	movq	%r15, 8*15(%rax)
	movq	16(%rsp), %rcx
	movq	%rcx, 8*0(%rax)
	addq	$24, %rsp
	.cfi_adjust_cfa_offset -24
	MG_RESTORE_CALLEE_SAVED
	ret
END(mg_abi_call_regs)

/* mg_abi_call with the trap flag set (step.h): from the next instruction
 * on, each one raises SIGTRAP, until the handler clears the flag. */
ENTRY(mg_abi_call_stepped)
	pushfq
	.cfi_adjust_cfa_offset 8
	orq	$0x100, (%rsp)
	popfq
	.cfi_adjust_cfa_offset -8
	jmp	mg_abi_call
END(mg_abi_call_stepped)
