/* RISC-V ABI rules (the psABI's Register Convention, LP64D): s0-s11 and
 * the 64 bits of fs0-fs11 are preserved, the stack pointer comes back
 * where it was, nothing at or above the incoming sp is written, gp and tp
 * are not modified ("signal handlers may rely upon their values"), frm is
 * unchanged (fcsr "must have thread storage duration in accordance with
 * C11 section 7.6": a function does not alter its caller's control modes),
 * and vstart is zero on return. vl, vtype, vxrm, vxsat and v0-v31 are not
 * preserved across calls: nothing to check (docs/contract.md, R1-R12).
 * Kernel code touches no FP state at all (RK1), and no vector state (RK2). */
#include "abi.h"

#include <stdio.h>
#include <sys/auxv.h>

#define HWCAP_V (1ul << ('v' - 'a'))
/* The C code is RV64GC, whose assembler may not name V's CSRs. */
#define CSR_VLENB 0xc22

/* frm's values (the F extension's rounding modes), fflags' five flags, and
 * vcsr's fields: vxrm (rnu 0, rne 1, rdn 2, rod 3) above vxsat. */
#define FRM_RTZ	     1
#define FRM_RDN	     2
#define FRM_RUP	     3
#define FRM_RMM	     4
#define FFLAGS_ALL   0x1f
#define VCSR(vxrm, vxsat) ((vxrm) << 1 | (vxsat))

/* The environments (MG_ABI_FPENV_NAMES, in its order): frm (-1: the
 * caller's), fflags and vcsr at entry. vxrm goes with frm's direction where
 * it has one (rdn, rod for up and max-magnitude, rne for toward zero: each
 * of the four once, the default's rnu included). */
struct fpenv {
	const char *name;
	int frm;
	uint32_t fflags, vcsr;
};
static const struct fpenv fpenvs[MG_ABI_FPENV_COUNT] = {
	{"default", -1, 0, VCSR(0, 0)},
	{"flags-set", -1, FFLAGS_ALL, VCSR(0, 1)},
	{"round-down", FRM_RDN, 0, VCSR(2, 0)},
	{"round-up", FRM_RUP, 0, VCSR(3, 0)},
	{"round-zero", FRM_RTZ, 0, VCSR(1, 0)},
	{"round-max-magnitude", FRM_RMM, FFLAGS_ALL, VCSR(3, 1)},
};

static uint64_t caller_frm;
static uint32_t has_v;
/* VLEN in bytes where the CPU has V, and whether v0-v31 fit the record
 * (VLEN <= 1024, as every qemu model memgate runs): the kernel contract's
 * vector rule looks at them. */
static uint64_t vlenb;
static uint32_t vregs_fit;

void mg_abi_threads_changed(void)
{
	/* The thread pointer is a register of each thread's own. */
}

void mg_abi_init(void)
{
	uint64_t frm;

	__asm__ volatile("frrm %0" : "=r"(frm));
	caller_frm = frm;
	has_v = (getauxval(AT_HWCAP) & HWCAP_V) != 0;
	if (has_v) {
		__asm__ volatile("csrr %0, %1" : "=r"(vlenb) : "i"(CSR_VLENB));
		vregs_fit = 32 * vlenb <= MG_ABI_VREGS_MAX;
	}
}

void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset)
{
	rec->check_fpu = (rules & MG_ABI_RULE_NO_FPU) != 0;
	rec->check_vregs = 0;
	if (rec->check_fpu && has_v)
		rec->check_vregs = vregs_fit ? MG_ABI_VREGS_ALL : MG_ABI_VREGS_VTYPE;
	rec->stack_offset = stack_offset;
	rec->check_vector = has_v;
	rec->frm_caller = caller_frm;
	rec->frm_before = caller_frm;
	rec->frm_after = caller_frm;
	rec->vstart_after = 0;
	rec->fflags_entry = 0;
	rec->vcsr_entry = 0;
}

const char *mg_abi_fpenv_name(unsigned fpenv)
{
	return fpenv < MG_ABI_FPENV_COUNT ? fpenvs[fpenv].name : NULL;
}

static uint64_t fpenv_frm(unsigned fpenv)
{
	return fpenvs[fpenv].frm < 0 ? caller_frm : (uint64_t)fpenvs[fpenv].frm;
}

void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size)
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	snprintf(out, size, "frm %llu, fflags 0x%02x, vxrm %u, vxsat %u",
		 (unsigned long long)fpenv_frm(fpenv), fpenvs[fpenv].fflags, fpenvs[fpenv].vcsr >> 1,
		 fpenvs[fpenv].vcsr & 1);
}

/* No situation steps a riscv64 routine (docs/contract.md, R15). */
int mg_abi_fpenv_steppable(unsigned fpenv)
{
	(void)fpenv;
	return 1;
}

/* frm_before is also what the call must leave (R7). */
unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS])
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	words[0] = fpenv_frm(fpenv);
	words[1] = fpenvs[fpenv].fflags;
	words[2] = fpenvs[fpenv].vcsr >> 1; /* vxrm */
	words[3] = fpenvs[fpenv].vcsr & 1;  /* vxsat */
	return 4;
}

void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv)
{
	if (fpenv == 0 || fpenv >= MG_ABI_FPENV_COUNT)
		return;
	rec->frm_before = fpenv_frm(fpenv);
	rec->fflags_entry = fpenvs[fpenv].fflags;
	rec->vcsr_entry = rec->check_vector ? fpenvs[fpenv].vcsr : 0;
}

static int clobbered(struct mg_verdict *out, const char *name, uint64_t canary, uint64_t found)
{
	if (found == canary)
		return 0;
	mg_verdict_abi(out, name, 1, 1, canary, found, "%s clobbered (0x%016llx -> 0x%016llx)",
		       name, (unsigned long long)canary, (unsigned long long)found);
	return 1;
}

/* Register `prefix``i`'s verdict, if it does not hold its canary. The name
 * is made only then: this runs on every call, and 24 snprintf calls were
 * most of a case's cost under qemu. */
static int clobbered_nth(struct mg_verdict *out, const char *prefix, int i, uint64_t canary,
			 uint64_t found)
{
	char name[8];

	if (found == canary)
		return 0;
	snprintf(name, sizeof name, "%s%d", prefix, i);
	return clobbered(out, name, canary, found);
}

static int clobbered_register(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		if (clobbered_nth(out, "s", i, MG_ABI_CANARY_S(i), rec->saved[i]))
			return 1;
	for (int i = 0; i < MG_ABI_FSAVED_COUNT; i++)
		if (clobbered_nth(out, "fs", i, MG_ABI_CANARY_FS(i), rec->fsaved[i]))
			return 1;
	return 0;
}

/* gp and tp hold no canary (the trampoline's comment says why): they must
 * come back as they were at the call. */
static int unallocatable_changed(struct mg_verdict *out, const char *name, uint64_t before,
				 uint64_t after)
{
	if (after == before)
		return 0;
	mg_verdict_abi(out, name, 0, 1, before, after,
		       "%s changed (0x%016llx -> 0x%016llx): procedures should not modify gp "
		       "and tp, because signal handlers may rely upon their values (RISC-V psABI)",
		       name, (unsigned long long)before, (unsigned long long)after);
	return 1;
}

/* The first of v0-v31 that does not hold the poison in every byte, or -1. */
static int first_changed_vreg(const struct mg_abi_record *rec)
{
	const uint64_t poison = 0x0101010101010101ull * MG_ABI_POISON_V;
	const size_t words = 32 * vlenb / 8;

	for (size_t i = 0; i < words; i++)
		if (rec->vregs[i] != poison)
			return (int)(i * 8 / vlenb);
	return -1;
}

/* The same rule for the vector unit (RK2): 6.1 has no
 * kernel_vector_begin, so kernel code has no vector state either. The
 * call entered with vtype.vill set and v0-v31 poisoned: a vsetvl clears
 * vill, a whole-register load (which needs none) changes a register. */
static int touched_vector(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	char what[48];
	int reg;

	if (!rec->check_vregs)
		return 0;
	if (!(rec->vtype_after >> 63))
		snprintf(what, sizeof what, "the vector unit (a vsetvl set vtype)");
	else if (rec->check_vregs == MG_ABI_VREGS_ALL && (reg = first_changed_vreg(rec)) >= 0)
		snprintf(what, sizeof what, "v%d", reg);
	else
		return 0;
	mg_verdict_abi(out, "fpu-state", 0, 0, 0, 0,
		       "kernel contract: touches %s (the kernel has no vector state of its own: "
		       "6.1 has no kernel_vector_begin; declare it with --requires fpu)",
		       what);
	return 1;
}

/* The kernel contract's no-FP rule: Linux builds riscv kernel code
 * without the F and D extensions (arch/riscv/Makefile strips fd from
 * -march), and 6.1 has no bracket for kernel FP or vector use. The poison
 * the trampoline put in the FP temporaries, and fflags, cleared, must come
 * back as they went (fs0-fs11 are the canaries' rule). */
static int touched_fpu(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	static const char *const names[MG_ABI_FTEMP_COUNT] = {
		"ft0", "ft1", "ft2", "ft3", "ft4",  "ft5", "ft6", "ft7", "ft8", "ft9",
		"ft10", "ft11", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7",
	};
	const char *what = NULL;

	if (!rec->check_fpu)
		return 0;
	for (int k = 0; k < MG_ABI_FTEMP_COUNT && !what; k++)
		if (rec->ftemp[k] != (uint64_t)MG_ABI_POISON_FT(k))
			what = names[k];
	if (!what && rec->fflags_after != 0)
		what = "fflags";
	if (!what)
		return touched_vector(rec, out);
	mg_verdict_abi(out, "fpu-state", 0, 0, 0, 0,
		       "kernel contract: touches %s (the kernel is built without the F and D "
		       "extensions: no FP state in kernel code; declare it with --requires fpu)",
		       what);
	return 1;
}

int mg_abi_violation(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out)
{
	(void)resumed; /* the kernel gives every register back from the frame */
	if (clobbered_register(rec, out) ||
	    unallocatable_changed(out, "gp", rec->gp_before, rec->gp_after) ||
	    unallocatable_changed(out, "tp", rec->tp_before, rec->tp_after))
		return 1;
	if (rec->sp_after != rec->sp_before) {
		mg_verdict_abi(out, "stack-pointer", 0, 1, rec->sp_before, rec->sp_after,
			       "stack pointer moved by %+lld bytes",
			       (long long)(rec->sp_after - rec->sp_before));
		return 1;
	}
	if (rec->frame[0] != MG_ABI_CANARY_FRAME0 || rec->frame[1] != MG_ABI_CANARY_FRAME1) {
		mg_verdict_abi(out, "caller-frame", 0, 0, 0, 0,
			       "the caller's stack frame above sp was overwritten");
		return 1;
	}
	if (rec->frm_after != rec->frm_before) {
		mg_verdict_abi(out, "frm", 0, 1, rec->frm_before, rec->frm_after,
			       "frm (fcsr's rounding mode) changed (%llu -> %llu): fcsr has thread "
			       "storage duration (C11 7.6), a call leaves its caller's modes",
			       (unsigned long long)rec->frm_before,
			       (unsigned long long)rec->frm_after);
		return 1;
	}
	if (rec->fflags_entry & ~rec->fflags_after) {
		mg_verdict_abi(out, "fflags", 0, 1, rec->fflags_entry, rec->fflags_after,
			       "fflags cleared (0x%02llx -> 0x%02llx): a function does not clear its "
			       "caller's floating-point status flags (C11 7.6)",
			       (unsigned long long)rec->fflags_entry,
			       (unsigned long long)rec->fflags_after);
		return 1;
	}
	if (rec->check_vector && rec->vstart_after != 0) {
		mg_verdict_abi(out, "vstart", 0, 1, 0, rec->vstart_after,
			       "vstart is %llu on return: procedures may assume it is zero upon "
			       "return (RISC-V psABI, Vector Register Convention)",
			       (unsigned long long)rec->vstart_after);
		return 1;
	}
	return touched_fpu(rec, out);
}

/* RISC-V has no state like x86's dirty upper AVX halves that would slow
 * the caller down. */
int mg_abi_dirty_upper(const struct mg_abi_record *rec)
{
	(void)rec;
	return 0;
}

/* Every rule here is judged on every call, resumed or not: qemu-user gives
 * a thread back from a signal what Linux does. */
unsigned mg_abi_unjudged(const struct mg_abi_record *rec, int resumed)
{
	(void)rec;
	(void)resumed;
	return 0;
}
