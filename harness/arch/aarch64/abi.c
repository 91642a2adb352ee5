/* AArch64 ABI rules (AAPCS64): x19-x29 and the low 64 bits of v8-v15 are
 * preserved, the stack pointer comes back where it was, nothing at or above
 * the incoming sp is written, and FPCR is unchanged (all of it is control
 * state: rounding mode, FZ, DN, AHP, trap enables; the flags live in FPSR,
 * which is the caller's to lose). x18, the platform register, is free in
 * Linux user space but reserved in kernel code, which keeps its shadow call
 * stack pointer there: it is checked only when the rule asks for it. */
#include "abi.h"

#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#define HWCAP2_SME (1ul << 23)
#define SVCR_SM	   1u
#define SVCR_ZA	   2u

static const char *const saved_names[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_NAMES;
static const uint64_t canaries[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_CANARIES;
static const uint64_t vcanaries[MG_ABI_VSAVED_COUNT] = MG_ABI_VSAVED_CANARIES;

static uint64_t caller_fpcr;
static uint32_t has_sme;

/* The parts of the floating-point environment a case sets at entry (A7,
 * C17). */
#define FPSR_CUMULATIVE	 0x0800009fu /* QC, IDC, IXC, UFC, OFC, DZC, IOC */
#define FPCR_RMODE_SHIFT 22
#define FPCR_RP		 (1u << FPCR_RMODE_SHIFT)
#define FPCR_RM		 (2u << FPCR_RMODE_SHIFT)
#define FPCR_RZ		 (3u << FPCR_RMODE_SHIFT)
#define FPCR_FZ		 (1u << 24)
#define FPCR_OF_CASE	 (FPCR_RZ | FPCR_FZ)

/* The environments (MG_ABI_FPENV_NAMES, in its order): FPCR's bits of
 * FPCR_OF_CASE, FPSR at entry. */
struct fpenv {
	const char *name;
	uint32_t fpcr, fpsr;
};
static const struct fpenv fpenvs[MG_ABI_FPENV_COUNT] = {
	{"default", 0, 0},
	{"flags-set", 0, FPSR_CUMULATIVE},	     /* every cumulative flag set */
	{"fz", FPCR_FZ, 0},			     /* flush to zero */
	{"round-up", FPCR_RP, 0},		     /* toward +inf */
	{"round-down", FPCR_RM, FPSR_CUMULATIVE},    /* toward -inf, the flags set */
	{"round-zero", FPCR_RZ, 0},		     /* toward zero */
	{"fz-flags-set", FPCR_FZ, FPSR_CUMULATIVE}, /* flush to zero, the flags set */
};

void mg_abi_threads_changed(void)
{
	/* The thread pointer is a register of each thread's own. */
}

void mg_abi_init(void)
{
	__asm__ volatile("mrs %0, fpcr" : "=r"(caller_fpcr));
	has_sme = (getauxval(AT_HWCAP2) & HWCAP2_SME) != 0;
}

void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset)
{
	rec->stack_offset = stack_offset;
	rec->fpcr_caller = caller_fpcr;
	rec->fpcr_before = caller_fpcr;
	rec->fpsr_entry = 0;
	rec->check_sme = has_sme;
	rec->svcr_after = 0;
	rec->check_x18 = (rules & MG_ABI_RULE_PLATFORM_REG) != 0;
	rec->check_fpu = (rules & MG_ABI_RULE_NO_FPU) != 0;
	rec->set_flags = rules & MG_ABI_RULE_ENTRY_FLAGS ? 0xf0000000u : 0;
}

const char *mg_abi_fpenv_name(unsigned fpenv)
{
	return fpenv < MG_ABI_FPENV_COUNT ? fpenvs[fpenv].name : NULL;
}

static uint64_t fpenv_fpcr(unsigned fpenv)
{
	return (caller_fpcr & ~(uint64_t)FPCR_OF_CASE) | fpenvs[fpenv].fpcr;
}

void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size)
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	snprintf(out, size, "FPCR 0x%08llx, FPSR 0x%08x",
		 (unsigned long long)(fpenv ? fpenv_fpcr(fpenv) : caller_fpcr), fpenvs[fpenv].fpsr);
}

int mg_abi_fpenv_steppable(unsigned fpenv)
{
	(void)fpenv;
	return 1; /* FPCR is in the signal frame's fpsimd record, and comes back */
}

/* The trampoline loads FPCR only where it differs from the caller's, and
 * gives the caller's back after the call; fpcr_before is also what the
 * call must leave. */
unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS])
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	words[0] = fpenv ? fpenv_fpcr(fpenv) : caller_fpcr;
	words[1] = fpenvs[fpenv].fpsr;
	return 2;
}

void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv)
{
	if (fpenv == 0 || fpenv >= MG_ABI_FPENV_COUNT)
		return;
	rec->fpcr_before = fpenv_fpcr(fpenv);
	rec->fpsr_entry = fpenvs[fpenv].fpsr;
}

static int clobbered(struct mg_verdict *out, const char *rule, const char *name, uint64_t canary,
		     uint64_t found)
{
	if (found == canary)
		return 0;
	mg_verdict_abi(out, rule, 1, 1, canary, found, "%s clobbered (0x%016llx -> 0x%016llx)",
		       name, (unsigned long long)canary, (unsigned long long)found);
	return 1;
}

/* d8-d15's verdict, for the first that does not hold its canary. Its names
 * are made only then: this runs on every call, and 16 snprintf calls were
 * most of a case's cost under qemu. */
static int clobbered_vector(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	char name[32], rule[8];

	for (int i = 0; i < MG_ABI_VSAVED_COUNT; i++) {
		if (rec->vsaved[i] == vcanaries[i])
			continue;
		snprintf(name, sizeof name, "d%d (low 64 bits)", 8 + i);
		snprintf(rule, sizeof rule, "d%d", 8 + i);
		return clobbered(out, rule, name, vcanaries[i], rec->vsaved[i]);
	}
	return 0;
}

static int clobbered_register(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		if (clobbered(out, saved_names[i], saved_names[i], canaries[i], rec->saved[i]))
			return 1;
	return clobbered_vector(rec, out);
}

static int platform_register_changed(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	if (!rec->check_x18 || rec->x18 == MG_ABI_CANARY_X18)
		return 0;
	mg_verdict_abi(out, "x18", 0, 1, MG_ABI_CANARY_X18, rec->x18,
		       "x18 (the platform register) changed (0x%016llx -> 0x%016llx): "
		       "reserved in kernel code (shadow call stack)",
		       (unsigned long long)MG_ABI_CANARY_X18, (unsigned long long)rec->x18);
	return 1;
}

/* The kernel contract's no-FP/SIMD rule: the kernel is built with
 * -mgeneral-regs-only, and may touch v0-v31, FPSR or FPCR only between
 * kernel_neon_begin and kernel_neon_end (arch/arm64/include/asm/neon.h). */
static int fpu_breach(struct mg_verdict *out, const char *what)
{
	mg_verdict_abi(out, "fpu-state", 0, 0, 0, 0,
		       "kernel contract: touches %s without declaring it (kernel code may use "
		       "FP/SIMD registers only between kernel_neon_begin and kernel_neon_end; "
		       "declare it with --requires fpu)",
		       what);
	return 1;
}

static int touched_fpu(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	static const uint64_t poison[2] = {0x5a5a5a5a5a5a5a5a, 0xa5a5a5a5a5a5a5a5};
	char what[16];

	if (!rec->check_fpu)
		return 0;
	for (int i = 0; i < 32; i++) {
		uint64_t half[2], want[2] = {poison[0], poison[1]};
		memcpy(half, rec->v_after[i], sizeof half);
		if (i >= 8 && i < 16) {
			want[0] = vcanaries[i - 8];
			want[1] = MG_ABI_CANARY_UPPER;
		}
		if (half[0] != want[0] || half[1] != want[1]) {
			snprintf(what, sizeof what, "v%d", i);
			return fpu_breach(out, what);
		}
	}
	if (rec->fpsr_after != rec->fpsr_before)
		return fpu_breach(out, "FPSR");
	return 0;
}

int mg_abi_violation(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out)
{
	(void)resumed; /* the kernel gives every register back from the frame */
	if (clobbered_register(rec, out) || platform_register_changed(rec, out))
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
	if (rec->fpcr_after != rec->fpcr_before) {
		mg_verdict_abi(out, "fpcr", 0, 1, rec->fpcr_before, rec->fpcr_after,
			       "FPCR control bits changed (0x%08llx -> 0x%08llx)",
			       (unsigned long long)rec->fpcr_before,
			       (unsigned long long)rec->fpcr_after);
		return 1;
	}
	if (rec->svcr_after & (SVCR_SM | SVCR_ZA)) {
		unsigned svcr = (unsigned)rec->svcr_after;
		mg_verdict_abi(out, "sme-state", 0, 1, 0, rec->svcr_after,
			       "returned with %s on (SVCR 0x%x): a non-streaming function with a "
			       "private ZA interface returns with PSTATE.SM and PSTATE.ZA as on "
			       "entry, both off (AAPCS64 6.2)",
			       svcr & SVCR_SM && svcr & SVCR_ZA ? "streaming mode and ZA"
			       : svcr & SVCR_SM		  ? "streaming mode (PSTATE.SM)"
							  : "ZA (PSTATE.ZA)",
			       svcr);
		return 1;
	}
	return touched_fpu(rec, out);
}

/* AArch64 has no state like x86's dirty upper AVX halves that would slow
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
