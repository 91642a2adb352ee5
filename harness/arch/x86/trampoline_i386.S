/* The i386 ABI trampoline (cdecl, System V i386).
 *
 * uint32_t mg_abi_call(const void *fn, uint32_t a0, uint32_t a1, uint32_t a2,
 *			struct mg_abi_record *rec)
 *
 * All five arguments arrive on the stack. Saves the caller's callee-saved
 * registers, loads a canary into each (ebx, esi, edi, ebp), and calls
 * fn(a0, a1, a2) on a stack at the case's alignment (esp mod 64 at the
 * call is the record's stack_offset) laid out as
 *
 *	esp+0	a0	\
 *	esp+4	a1	 } the callee's own argument words: it may write them
 *	esp+8	a2	/
 *	esp+12	FRAME0	\ the caller's: must be unchanged on return
 *	esp+16	FRAME1	/
 *	esp+20	our esp, for the CFI (the return takes it from %gs:caller_sp)
 *
 * When the record asks for it, it enters with the case's floating-point
 * environment (MXCSR, with SSE, and the x87 environment).
 * Afterwards it records the registers, the stack pointer, eflags (DF), MXCSR
 * (when the CPU has SSE), the x87 control word, the two frame words and,
 * when the record asks for it, XINUSE (which the CPU must have).
 * Under the kernel contract's no-FPU rule (check_fpu) it also poisons the
 * x87 registers and resets the x87 unit, fills xmm0-7 (with SSE) with a poison pattern and saves an
 * FXSAVE image before the call and another after it, as on x86-64.
 *
 * With a register convention of the routine's own (the record's conv),
 * every general register but esp enters as the record's regs_in says (the
 * argument words stay on the stack, unread), and every one is stored in
 * regs_out after the call; the result is regs_out[conv_ret] (eax for the
 * C convention).
 *
 * Last it compares gs, the thread pointer, with the record's (its selector,
 * and its base: with get_thread_area after the sampled calls, through the
 * thread control block's self-pointer after the others) and puts the
 * thread's back if the call changed it.
 *
 * It trusts nothing the callee may have broken. i386 has no PC-relative data
 * addressing, so a position-independent global needs a base register or a
 * call to find it, and after the callee neither a register nor the stack
 * pointer can be relied on. The record and the caller's stack pointer are
 * therefore kept thread-local, and reached after the call through fs, which
 * holds a descriptor of the trampoline's own with the thread's base (abi.c): one instruction, with no base register and no stack, and
 * whatever the callee did to gs. Only once the stack pointer is the
 * trampoline's own again does it touch the stack or the globals.
 */
#include <sys/syscall.h>
#include "abi.h"
#include "asmdefs.h"
#include "cfi_push.h"

	.section .tbss, "awT", @nobits
	.p2align 2
current_record:
	.zero	4
caller_sp:			/* esp after the pushes: the saved registers */
	.zero	4
current_fn:			/* the callee: every register may be its argument */
	.zero	4
scratch_ecx:			/* ecx as the call left it, while ecx finds the record */
	.zero	4

/* The four saved registers, and the callee's frame: the three argument
 * words, the two canaries, then where our esp after the pushes is kept. */
#define SAVED_SIZE	16
#define CALLER_SP_SLOT	20
#define CALL_FRAME	24

/* The CFA while esp is the realigned one, `pushed` bytes below where it
 * is at the call: DW_CFA_def_cfa_expression of
 *	DW_OP_breg4 (esp) CALLER_SP_SLOT + pushed; DW_OP_deref;
 *	DW_OP_plus_uconst SAVED_SIZE + 4 (the saved registers, the return address)
 * (each operand fits one LEB128 byte). */
#define CFA_FROM_SLOT(pushed)                                                                      \
	.cfi_escape 0x0f, 5, 0x74, CALLER_SP_SLOT + (pushed), 0x06, 0x23, SAVED_SIZE + 4

	.section .rodata
	.p2align 4
fpu_poison:
	.long	0x5a5a5a5a, 0x5a5a5a5a, 0xa5a5a5a5, 0xa5a5a5a5

	.text
/* Leaves the address of the instruction after the call in ecx, for the
 * GOT-relative addressing of the globals. */
LOCAL_ENTRY(pc_in_ecx)
	movl	(%esp), %ecx
	ret
END(pc_in_ecx)

ENTRY(mg_abi_call)
	MG_SAVE_CALLEE_SAVED
	/* Arguments, above the four saved registers and the return address. */
	movl	36(%esp), %edx		/* rec */
	movl	%edx, %gs:current_record@ntpoff
	movl	%esp, %gs:caller_sp@ntpoff
	movw	%gs, MG_ABI_GS_BEFORE(%edx)
	/* The same words through fs, whatever gs becomes. It stays loaded
	 * after the call (nothing else of the process uses fs): loading a
	 * segment register costs tens of nanoseconds, reading it one cycle. */
	movw	%fs, %cx
	cmpw	MG_ABI_FS_TRAMP(%edx), %cx
	je	19f
	movw	MG_ABI_FS_TRAMP(%edx), %fs
19:
	/* The caller's MXCSR and x87 control word are not read here: they
	 * are constant, and the record arrives with them (fnstcw is slow). */
	call	pc_in_ecx
	addl	$_GLOBAL_OFFSET_TABLE_, %ecx
	cmpl	$0, mg_abi_has_avx@GOTOFF(%ecx)
	je	1f
	vzeroupper			/* so dirty upper state afterwards is the callee's */
1:	cmpl	$0, MG_ABI_CHECK_FPU(%edx)
	je	5f
	/* The kernel contract's no-FPU rule (IK3): every x87 register
	 * poisoned, then an empty stack as FNINIT leaves it (it keeps the
	 * registers' contents), xmm0-7 poisoned, an FXSAVE image of it all. */
	fninit
	.rept	8
	fldl	fpu_poison@GOTOFF(%ecx)
	.endr
	fninit
	fldcw	MG_ABI_FPUCW_BEFORE(%edx)
	cmpl	$0, mg_abi_has_sse@GOTOFF(%ecx)
	je	7f
	movaps	fpu_poison@GOTOFF(%ecx), %xmm0
	movaps	fpu_poison@GOTOFF(%ecx), %xmm1
	movaps	fpu_poison@GOTOFF(%ecx), %xmm2
	movaps	fpu_poison@GOTOFF(%ecx), %xmm3
	movaps	fpu_poison@GOTOFF(%ecx), %xmm4
	movaps	fpu_poison@GOTOFF(%ecx), %xmm5
	movaps	fpu_poison@GOTOFF(%ecx), %xmm6
	movaps	fpu_poison@GOTOFF(%ecx), %xmm7
7:	fxsave	MG_ABI_FX_BEFORE(%edx)
5:	cmpl	$0, MG_ABI_CHECK_X87(%edx)
	je	6f
	fninit				/* in x87 mode, as the ABI promises at entry */
	fldcw	MG_ABI_FPUCW_BEFORE(%edx)
6:	cmpl	$0, MG_ABI_SET_FPENV(%edx)
	je	11f
	/* The case's floating-point environment (C17, X6): rounding, flush
	 * and exception masks, status flags set or clear, as a caller may
	 * run with them. */
	cmpl	$MG_ABI_FPENV_WHOLE, MG_ABI_SET_FPENV(%edx)
	je	14f
	fldcw	MG_ABI_FPUCW_BEFORE(%edx)	/* FLDENV costs several times this */
	jmp	15f
14:	movl	MG_ABI_FPENV_IMAGE(%edx), %eax
	fldenv	(%eax)
15:	cmpl	$0, mg_abi_has_sse@GOTOFF(%ecx)
	je	11f
	ldmxcsr	MG_ABI_MXCSR_BEFORE(%edx)
11:	/* The callee's frame: six words below ours, at the case's alignment
	 * (I5, IK2 in docs/contract.md): aligned down to 64, then raised by
	 * the record's stack_offset, whatever our caller's alignment. */
	leal	-(CALL_FRAME + 64)(%esp), %eax
	andl	$-64, %eax
	addl	MG_ABI_STACK_OFFSET(%edx), %eax
	movl	%esp, CALLER_SP_SLOT(%eax)
	movl	24(%esp), %ecx
	movl	%ecx, 0(%eax)
	movl	28(%esp), %ecx
	movl	%ecx, 4(%eax)
	movl	32(%esp), %ecx
	movl	%ecx, 8(%eax)
	movl	$MG_ABI_CANARY_FRAME0, 12(%eax)
	movl	$MG_ABI_CANARY_FRAME1, 16(%eax)
	movl	%eax, MG_ABI_SP_BEFORE(%edx)
	movl	20(%esp), %ecx		/* fn */
	movl	%ecx, %fs:current_fn@ntpoff
	/* The callee's frame is realigned: no fixed offset leads back to
	 * ours, so the CFI finds it through the word kept above the frame
	 * words. */
	.cfi_remember_state
	movl	%eax, %esp
	CFA_FROM_SLOT(0)
	cmpl	$0, MG_ABI_CONV(%edx)
	jne	21f
	movl	$MG_ABI_CANARY_EBX, %ebx
	movl	$MG_ABI_CANARY_ESI, %esi
	movl	$MG_ABI_CANARY_EDI, %edi
	movl	$MG_ABI_CANARY_EBP, %ebp
	cmpl	$0, MG_ABI_SET_FLAGS(%edx)
	je	10f			/* taken: CF, SF, OF clear, ZF set */
	pushfl				/* or every arithmetic flag set (TF kept) */
	CFA_FROM_SLOT(4)
	orl	$0x8d5, (%esp)
	popfl
	CFA_FROM_SLOT(0)
	jmp	10f
	/* A convention of the routine's own: every register but esp from
	 * regs_in, the flags set first (a mov leaves them), eax last. */
21:	cmpl	$0, MG_ABI_SET_FLAGS(%edx)
	je	22f
	pushfl
	CFA_FROM_SLOT(4)
	orl	$0x8d5, (%esp)
	popfl
	CFA_FROM_SLOT(0)
22:	movl	%edx, %eax
	movl	MG_ABI_REGS_IN+4*1(%eax), %ecx
	movl	MG_ABI_REGS_IN+4*2(%eax), %edx
	movl	MG_ABI_REGS_IN+4*3(%eax), %ebx
	movl	MG_ABI_REGS_IN+4*5(%eax), %ebp
	movl	MG_ABI_REGS_IN+4*6(%eax), %esi
	movl	MG_ABI_REGS_IN+4*7(%eax), %edi
	movl	MG_ABI_REGS_IN+4*0(%eax), %eax
10:	call	*%fs:current_fn@ntpoff
	.globl	mg_abi_call_returned
mg_abi_call_returned:		/* where a stepped call leaves fn (step.h) */

	/* Every register as the call left it, for a convention of the
	 * routine's own (movs only: the flags are recorded below), and the
	 * result from the register it names (eax by default). */
	movl	%ecx, %fs:scratch_ecx@ntpoff
	movl	%fs:current_record@ntpoff, %ecx
	movl	%eax, MG_ABI_REGS_OUT+4*0(%ecx)
	movl	%edx, MG_ABI_REGS_OUT+4*2(%ecx)
	movl	%ebx, MG_ABI_REGS_OUT+4*3(%ecx)
	movl	%ebp, MG_ABI_REGS_OUT+4*5(%ecx)
	movl	%esi, MG_ABI_REGS_OUT+4*6(%ecx)
	movl	%edi, MG_ABI_REGS_OUT+4*7(%ecx)
	movl	%fs:scratch_ecx@ntpoff, %eax
	movl	%eax, MG_ABI_REGS_OUT+4*1(%ecx)
	movl	MG_ABI_CONV_RET(%ecx), %eax
	movl	MG_ABI_REGS_OUT(%ecx,%eax,4), %eax
	movl	%esp, MG_ABI_SP_AFTER(%ecx)
	movl	MG_ABI_SP_BEFORE(%ecx), %esp
	movl	%ebx, MG_ABI_SAVED+0(%ecx)
	movl	%esi, MG_ABI_SAVED+4(%ecx)
	movl	%edi, MG_ABI_SAVED+8(%ecx)
	movl	%ebp, MG_ABI_SAVED+12(%ecx)
	pushfl
	CFA_FROM_SLOT(4)
	popl	MG_ABI_FLAGS(%ecx)
	CFA_FROM_SLOT(0)
	cld
	movl	12(%esp), %edx
	movl	%edx, MG_ABI_FRAME(%ecx)
	movl	16(%esp), %edx
	movl	%edx, MG_ABI_FRAME+4(%ecx)
	/* From here on ebx holds the record, esi the return value: both are
	 * restored from the caller's saved words at the end. */
	movl	%ecx, %ebx
	movl	%eax, %esi
	call	pc_in_ecx
	addl	$_GLOBAL_OFFSET_TABLE_, %ecx
	cmpl	$0, mg_abi_has_sse@GOTOFF(%ecx)
	je	3f
	stmxcsr	MG_ABI_MXCSR_AFTER(%ebx)
	/* Give the caller its own control state back if the call left
	 * another, the case's or the callee's (loading them costs more than
	 * comparing); and no x87 status flags of the case's environment. */
	movl	MG_ABI_MXCSR_AFTER(%ebx), %ecx
	cmpl	MG_ABI_MXCSR_CALLER(%ebx), %ecx
	je	3f
	ldmxcsr	MG_ABI_MXCSR_CALLER(%ebx)
3:	fnstcw	MG_ABI_FPUCW_AFTER(%ebx)
	cmpl	$0, MG_ABI_CHECK_FPU(%ebx)
	je	13f
	fxsave	MG_ABI_FX_AFTER(%ebx)
	fninit				/* whatever the callee left on the x87 stack */
	fldcw	MG_ABI_FPUCW_CALLER(%ebx)
13:	cmpl	$MG_ABI_FPENV_WHOLE, MG_ABI_SET_FPENV(%ebx)
	jne	12f
	fnclex
12:	movzwl	MG_ABI_FPUCW_AFTER(%ebx), %ecx
	cmpw	MG_ABI_FPUCW_CALLER(%ebx), %cx
	je	4f
	fldcw	MG_ABI_FPUCW_CALLER(%ebx)
4:	cmpl	$0, MG_ABI_CHECK_X87(%ebx)
	je	8f
	/* Back in x87 mode, one push fits; after MMX code without emms every
	 * register is tagged valid, and it overflows the stack (SF, C1). The
	 * CPU may lack MMX (emms): fninit empties the stack instead.
	 * qemu-i386 (7.2) reports no stack fault, but keeps the tags: the
	 * register a push would take, ST(7), non-empty in the tag word
	 * (FNSTENV's) says the same, and sets SF too (in %edx). */
	subl	$28, %esp
	fnstenv	(%esp)
	movzwl	8(%esp), %edx	/* the tag word: two bits a register, 3 empty */
	movzwl	4(%esp), %ecx	/* the status word: TOP in bits 11-13 */
	addl	$28, %esp
	shrl	$11, %ecx
	decl	%ecx		/* ST(7) is the register below TOP */
	andl	$7, %ecx
	addl	%ecx, %ecx
	shrl	%cl, %edx
	andl	$3, %edx
	xorl	$3, %edx	/* 0: empty */
	jz	5f
	movl	$0x40, %edx	/* SF */
5:	fnclex
	fld1
	fnstsw	MG_ABI_FPUSW_AFTER(%ebx)
	orw	%dx, MG_ABI_FPUSW_AFTER(%ebx)
	fstp	%st(0)
	fninit
	fldcw	MG_ABI_FPUCW_CALLER(%ebx)
8:	cmpl	$0, MG_ABI_READ_XINUSE(%ebx)
	je	2f
	movl	$1, %ecx
	xgetbv
	movl	%eax, MG_ABI_XINUSE(%ebx)
	movl	%edx, MG_ABI_XINUSE+4(%ebx)
2:	/* gs is the thread pointer, reserved for the system (I7): its
	 * selector, and on the sampled calls its descriptor's base; the
	 * thread's back if the call changed either, before any C code reads
	 * its thread's data through it. */
	movw	%gs, MG_ABI_GS_AFTER(%ebx)
	movzwl	MG_ABI_GS_AFTER(%ebx), %ecx
	cmpw	MG_ABI_GS_BEFORE(%ebx), %cx
	je	16f
	movw	MG_ABI_GS_BEFORE(%ebx), %gs
16:	cmpl	$0, MG_ABI_CHECK_GS(%ebx)
	jne	18f
	/* Between the sampled calls, the TCB's first word: the TLS ABI has
	 * it hold the thread pointer itself, so it reads otherwise through
	 * a moved base (or faults: a crash, never a pass). */
	movl	%gs:0, %ecx
	cmpl	MG_ABI_GSBASE_BEFORE(%ebx), %ecx
	je	17f
18:	addl	$MG_ABI_GS_DESC, %ebx
	movl	$SYS_get_thread_area, %eax
	int	$0x80
	subl	$MG_ABI_GS_DESC, %ebx
	movl	%eax, MG_ABI_GS_DESC_RET(%ebx)
	testl	%eax, %eax
	jne	17f
	movl	MG_ABI_GS_DESC+4(%ebx), %ecx	/* base_addr */
	cmpl	MG_ABI_GSBASE_BEFORE(%ebx), %ecx
	je	17f
	pushl	%ebx
	CFA_FROM_SLOT(4)
	movl	MG_ABI_GS_DESC_THREAD(%ebx), %ebx
	movl	$SYS_set_thread_area, %eax
	int	$0x80			/* reloads gs with the thread's base */
	popl	%ebx
	CFA_FROM_SLOT(0)
17:	movl	%esi, %eax
	movl	%fs:caller_sp@ntpoff, %esp
	.cfi_restore_state
	MG_RESTORE_CALLEE_SAVED
	ret
END(mg_abi_call)

/* void mg_abi_call_regs(const void *fn, uint32_t regs[8])
 *
 * A direct call with a register convention of the routine's own (abi.h):
 * every general register but esp enters as regs[] says (in the order of
 * MG_ABI_GPR_NAMES), and leaves its value there after the call. Only the
 * stack holds its state, so a signal handler or another thread may call it
 * while a call through mg_abi_call is under way; it checks nothing. */
ENTRY(mg_abi_call_regs)
	MG_SAVE_CALLEE_SAVED
	movl	24(%esp), %eax		/* regs */
	movl	20(%esp), %ecx		/* fn */
	subl	$4, %esp		/* esp a multiple of 16 at the call */
	.cfi_adjust_cfa_offset 4
	pushl	%eax			/* 4(%esp) at the call: regs */
	.cfi_adjust_cfa_offset 4
	pushl	%ecx			/* 0(%esp): fn */
	.cfi_adjust_cfa_offset 4
	movl	4*1(%eax), %ecx
	movl	4*2(%eax), %edx
	movl	4*3(%eax), %ebx
	movl	4*5(%eax), %ebp
	movl	4*6(%eax), %esi
	movl	4*7(%eax), %edi
	movl	4*0(%eax), %eax
	call	*(%esp)
	xchgl	%eax, 4(%esp)		/* eax: regs; the callee's eax on the stack */
	movl	%ecx, 4*1(%eax)
	movl	%edx, 4*2(%eax)
	movl	%ebx, 4*3(%eax)
	movl	%ebp, 4*5(%eax)
	movl	%esi, 4*6(%eax)
	movl	%edi, 4*7(%eax)
	movl	4(%esp), %ecx
	movl	%ecx, 4*0(%eax)
	addl	$12, %esp
	.cfi_adjust_cfa_offset -12
	MG_RESTORE_CALLEE_SAVED
	ret
END(mg_abi_call_regs)

/* mg_abi_call with the trap flag set (step.h): from the next instruction
 * on, each one raises SIGTRAP, until the handler clears the flag. */
ENTRY(mg_abi_call_stepped)
	pushfl
	.cfi_adjust_cfa_offset 4
	orl	$0x100, (%esp)
	popfl
	.cfi_adjust_cfa_offset -4
	jmp	mg_abi_call
END(mg_abi_call_stepped)
