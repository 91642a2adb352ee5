/* The RISC-V (LP64D) ABI record: what the trampoline (trampoline_riscv64.S)
 * plants and finds. Included by abi.h; the offsets are for the assembly. */
#ifndef MG_ABI_RISCV64_H
#define MG_ABI_RISCV64_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	    0 /* s0-s11 after the call */
#define MG_ABI_SAVED_COUNT  12
#define MG_ABI_FSAVED	    96 /* fs0-fs11 (64 bits each: LP64D) after the call */
#define MG_ABI_FSAVED_COUNT 12
#define MG_ABI_GP_BEFORE    192 /* gp and tp at the call, and after it */
#define MG_ABI_GP_AFTER	    200
#define MG_ABI_TP_BEFORE    208
#define MG_ABI_TP_AFTER	    216
#define MG_ABI_SP_BEFORE    224
#define MG_ABI_SP_AFTER	    232
#define MG_ABI_FRAME	    240 /* the two words at the callee's incoming sp */
#define MG_ABI_SP_CALLER    256 /* the trampoline's own sp, restored at its return */
#define MG_ABI_STACK_OFFSET 264 /* in: sp mod 64 at entry */
#define MG_ABI_CHECK_VECTOR 268 /* in: the CPU has V: vector state is read and set */
#define MG_ABI_FRM_BEFORE   272 /* in: frm at entry, which the call must leave */
#define MG_ABI_FRM_AFTER    280
#define MG_ABI_FRM_CALLER   288 /* in: the caller's frm, restored after the call */
#define MG_ABI_VSTART_AFTER 296 /* with check_vector: vstart after the call */
#define MG_ABI_CHECK_FPU    304 /* in: the kernel contract's no-FP rule */
#define MG_ABI_CHECK_VREGS  308 /* in: that rule where the CPU has V: MG_ABI_VREGS_* */
#define MG_ABI_FTEMP	    312 /* with check_fpu: ft0-ft11, fa0-fa7 after the call */
#define MG_ABI_FTEMP_COUNT  20
#define MG_ABI_FFLAGS_AFTER 472 /* fflags after the call (cleared before, with check_fpu) */
#define MG_ABI_VTYPE_AFTER  480 /* with check_vregs: vtype after the call (vill before) */
#define MG_ABI_FFLAGS_ENTRY 488 /* in: fflags at entry (the case's environment) */
#define MG_ABI_VCSR_ENTRY   496 /* in, with check_vector: vxrm and vxsat at entry (vcsr) */
#define MG_ABI_VREGS	    504 /* with check_vregs: v0-v31 after the call (poisoned before) */
#define MG_ABI_VREGS_MAX    4096 /* 32 registers of VLEN 1024 */
#define MG_ABI_VREGS_VTYPE  1	 /* check_vregs: vtype only (the registers do not fit) */
#define MG_ABI_VREGS_ALL    2	 /* check_vregs: vtype and v0-v31 */

/* What the stack alignment at entry may be (docs/contract.md, R6): the
 * case's stack_offset is sp mod 64 at entry, a multiple of 16 (the psABI's
 * Integer Calling Convention: "the stack pointer shall be aligned to a
 * 128-bit boundary upon procedure entry"; Linux's kernel the same). */
#define MG_ABI_STACK_STEP	 16
#define MG_ABI_STACK_STEP_KERNEL 16
#define MG_ABI_STACK_AT_ENTRY	 "sp mod 64"
#define MG_ABI_STACK_PROMISE                                                                       \
	"a multiple of 16 at procedure entry (RISC-V psABI, Integer Calling Convention)"
#define MG_ABI_STACK_PROMISE_KERNEL MG_ABI_STACK_PROMISE

/* The floating-point environments a case may enter with (docs/contract.md,
 * R7, R9, C17; the case's fpenv, abi.h): what a caller may have set with
 * fesetround or feraiseexcept, frm and fflags, and vxrm and vxsat, which
 * are unspecified at entry (psABI, Vector Register Convention). 0 is the
 * caller's own: its frm, no flag raised, vxrm 0 (rnu), vxsat clear. */
#define MG_ABI_FPENV_COUNT 6
#define MG_ABI_FPENV_NAMES                                                                         \
	"default, flags-set, round-down, round-up, round-zero, round-max-magnitude"

/* An int argument narrower than XLEN is sign-extended to 64 bits (psABI,
 * Integer Calling Convention): memset's c arrives so, never with garbage
 * above bit 31 (call.h). */
#define MG_ABI_INT_SIGN_EXTENDED 1

/* The canaries: 0x5...5 and the s register's number, 0xf5...f5 and the fs
 * register's, so that a diagnosis names itself. */
#define MG_ABI_CANARY_S(n)   (0x5555555555555500 + (n))
#define MG_ABI_CANARY_FS(n)  (0xf5f5f5f5f5f5f500 + (n))
/* The kernel contract's poison in the FP temporaries: ft0-ft11 are 0..11,
 * fa0-fa7 12..19, in the order MG_ABI_FTEMP keeps them. */
#define MG_ABI_POISON_FT(n)  (0xf7f7f7f7f7f7f700 + (n))
/* ... and in every byte of v0-v31, where the CPU has V. */
#define MG_ABI_POISON_V	     0xf7
#define MG_ABI_CANARY_FRAME0 0xf0f0f0f0f0f0f0f0
#define MG_ABI_CANARY_FRAME1 0xf1f1f1f1f1f1f1f1

/* Why the interrupt situation is n/a here (harness/arch/none/step.c):
 * RISC-V has no user-visible single-step (the debug module's step is for
 * an external debugger), and qemu-user does not single-step the programs
 * it runs. */
#define MG_STEP_IMPOSSIBLE "riscv64 user code cannot single-step itself (RISC-V has no user-mode single-step; Linux has no PTRACE_SINGLESTEP there)"

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct mg_abi_record {
	uint64_t saved[MG_ABI_SAVED_COUNT];
	uint64_t fsaved[MG_ABI_FSAVED_COUNT];
	uint64_t gp_before, gp_after;
	uint64_t tp_before, tp_after;
	uint64_t sp_before, sp_after;
	uint64_t frame[2];
	uint64_t sp_caller;
	uint32_t stack_offset; /* in: the case's, a multiple of 16 below 64 */
	uint32_t check_vector; /* in: HWCAP's V: vstart is read after the call */
	uint64_t frm_before;   /* in: the rounding mode at entry */
	uint64_t frm_after;
	uint64_t frm_caller; /* in: the caller's, given back after the call */
	uint64_t vstart_after;
	uint32_t check_fpu;   /* in: kernel code without --requires fpu */
	uint32_t check_vregs; /* in: check_fpu on a CPU with V: MG_ABI_VREGS_* */
	uint64_t ftemp[MG_ABI_FTEMP_COUNT];
	uint64_t fflags_after;
	uint64_t vtype_after;
	uint64_t fflags_entry; /* in */
	uint64_t vcsr_entry;   /* in: vxrm << 1 | vxsat */
	uint64_t vregs[MG_ABI_VREGS_MAX / 8];
};

_Static_assert(offsetof(struct mg_abi_record, fsaved) == MG_ABI_FSAVED, "layout");
_Static_assert(offsetof(struct mg_abi_record, gp_before) == MG_ABI_GP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, gp_after) == MG_ABI_GP_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, tp_before) == MG_ABI_TP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, tp_after) == MG_ABI_TP_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_before) == MG_ABI_SP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_after) == MG_ABI_SP_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, frame) == MG_ABI_FRAME, "layout");
_Static_assert(offsetof(struct mg_abi_record, sp_caller) == MG_ABI_SP_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, stack_offset) == MG_ABI_STACK_OFFSET, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_vector) == MG_ABI_CHECK_VECTOR, "layout");
_Static_assert(offsetof(struct mg_abi_record, frm_before) == MG_ABI_FRM_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, frm_after) == MG_ABI_FRM_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, frm_caller) == MG_ABI_FRM_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, vstart_after) == MG_ABI_VSTART_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_fpu) == MG_ABI_CHECK_FPU, "layout");
_Static_assert(offsetof(struct mg_abi_record, ftemp) == MG_ABI_FTEMP, "layout");
_Static_assert(offsetof(struct mg_abi_record, fflags_after) == MG_ABI_FFLAGS_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_vregs) == MG_ABI_CHECK_VREGS, "layout");
_Static_assert(offsetof(struct mg_abi_record, vtype_after) == MG_ABI_VTYPE_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fflags_entry) == MG_ABI_FFLAGS_ENTRY, "layout");
_Static_assert(offsetof(struct mg_abi_record, vcsr_entry) == MG_ABI_VCSR_ENTRY, "layout");
_Static_assert(offsetof(struct mg_abi_record, vregs) == MG_ABI_VREGS, "layout");
#endif

#endif
