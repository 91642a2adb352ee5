/* 32-bit Arm ABI rules (AAPCS, hard float, as Linux's armhf uses it):
 * r4-r11 and d8-d15 are preserved (5.1.1, 5.1.2.1; r9 is a callee-saved
 * register on Linux), the stack pointer comes back where it was, nothing at
 * or above the incoming sp is written, and FPSCR's control bits (trap
 * enables, Len and Stride, the rounding mode, FZ, DN, AHP) are unchanged
 * (5.1.2.1, "VFP register usage conventions"; C11 7.6): its cumulative
 * flags and condition bits are the caller's to lose. */
#include "abi.h"

#include <stdio.h>

static const char *const saved_names[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_NAMES;
static const uint32_t canaries[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_CANARIES;
static const uint64_t vcanaries[MG_ABI_VSAVED_COUNT] = MG_ABI_VSAVED_CANARIES;

static uint32_t caller_fpscr;

/* The parts of FPSCR a case sets at entry (C17). */
#define FPSCR_CUMULATIVE  0x0800009fu /* QC, IDC, IXC, UFC, OFC, DZC, IOC */
#define FPSCR_RMODE_SHIFT 22
#define FPSCR_RP	  (1u << FPSCR_RMODE_SHIFT)
#define FPSCR_RM	  (2u << FPSCR_RMODE_SHIFT)
#define FPSCR_RZ	  (3u << FPSCR_RMODE_SHIFT)
#define FPSCR_FZ	  (1u << 24)
#define FPSCR_OF_CASE	  (FPSCR_RZ | FPSCR_FZ)

/* The environments (MG_ABI_FPENV_NAMES, in its order): the control bits
 * of FPSCR_OF_CASE, and the flags at entry. */
struct fpenv {
	const char *name;
	uint32_t control, flags;
};
static const struct fpenv fpenvs[MG_ABI_FPENV_COUNT] = {
	{"default", 0, 0},
	{"flags-set", 0, FPSCR_CUMULATIVE},	     /* every cumulative flag set */
	{"fz", FPSCR_FZ, 0},			     /* flush to zero */
	{"round-up", FPSCR_RP, 0},		     /* toward +inf */
	{"round-down", FPSCR_RM, FPSCR_CUMULATIVE},  /* toward -inf, the flags set */
	{"round-zero", FPSCR_RZ, 0},		     /* toward zero */
	{"fz-flags-set", FPSCR_FZ, FPSCR_CUMULATIVE}, /* flush to zero, the flags set */
};

void mg_abi_threads_changed(void)
{
	/* The thread pointer (TPIDRURO) is each thread's own. */
}

void mg_abi_init(void)
{
	uint32_t fpscr;

	__asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
	caller_fpscr = fpscr & MG_ABI_FPSCR_CONTROL;
}

void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset)
{
	(void)rules; /* no optional rule applies here yet */
	rec->stack_offset = stack_offset;
	rec->fpscr_caller = caller_fpscr;
	rec->fpscr_before = caller_fpscr;
}

const char *mg_abi_fpenv_name(unsigned fpenv)
{
	return fpenv < MG_ABI_FPENV_COUNT ? fpenvs[fpenv].name : NULL;
}

/* FPSCR at entry in environment `fpenv`. */
static uint32_t fpenv_fpscr(unsigned fpenv)
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	return (caller_fpscr & ~FPSCR_OF_CASE) | fpenvs[fpenv].control | fpenvs[fpenv].flags;
}

void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size)
{
	snprintf(out, size, "FPSCR 0x%08x", (unsigned)fpenv_fpscr(fpenv));
}

int mg_abi_fpenv_steppable(unsigned fpenv)
{
	(void)fpenv;
	return 1; /* FPSCR is in the signal frame's VFP record, and comes back */
}

unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS])
{
	words[0] = fpenv_fpscr(fpenv);
	return 1;
}

/* The trampoline loads fpscr_before at entry and compares its control
 * bits after the call: the case's are what the call must leave. */
void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv)
{
	if (fpenv == 0 || fpenv >= MG_ABI_FPENV_COUNT)
		return;
	rec->fpscr_before = fpenv_fpscr(fpenv);
}

static int clobbered(struct mg_verdict *out, const char *rule, const char *name, uint64_t canary,
		     uint64_t found, int width)
{
	if (found == canary)
		return 0;
	mg_verdict_abi(out, rule, 1, 1, canary, found, "%s clobbered (0x%0*llx -> 0x%0*llx)", name,
		       width, (unsigned long long)canary, width, (unsigned long long)found);
	return 1;
}

/* d8-d15's verdict, for the first that does not hold its canary; its name
 * is made only then (this runs on every call). */
static int clobbered_vector(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	char name[8];

	for (int i = 0; i < MG_ABI_VSAVED_COUNT; i++) {
		if (rec->vsaved[i] == vcanaries[i])
			continue;
		snprintf(name, sizeof name, "d%d", 8 + i);
		return clobbered(out, name, name, vcanaries[i], rec->vsaved[i], 16);
	}
	return 0;
}

static int clobbered_register(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		if (clobbered(out, saved_names[i], saved_names[i], canaries[i], rec->saved[i], 8))
			return 1;
	return clobbered_vector(rec, out);
}

int mg_abi_violation(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out)
{
	uint32_t before = rec->fpscr_before & MG_ABI_FPSCR_CONTROL;
	uint32_t after = rec->fpscr_after & MG_ABI_FPSCR_CONTROL;

	(void)resumed; /* the kernel (and qemu) give every register back from the frame */
	if (clobbered_register(rec, out))
		return 1;
	if (rec->sp_after != rec->sp_before) {
		mg_verdict_abi(out, "stack-pointer", 0, 1, rec->sp_before, rec->sp_after,
			       "stack pointer moved by %+d bytes",
			       (int)(rec->sp_after - rec->sp_before));
		return 1;
	}
	if (rec->frame[0] != MG_ABI_CANARY_FRAME0 || rec->frame[1] != MG_ABI_CANARY_FRAME1) {
		mg_verdict_abi(out, "caller-frame", 0, 0, 0, 0,
			       "the caller's stack frame above sp was overwritten");
		return 1;
	}
	if (after != before) {
		mg_verdict_abi(out, "fpscr", 0, 1, before, after,
			       "FPSCR control bits changed (0x%08x -> 0x%08x): a call leaves its "
			       "caller's rounding mode, FZ, DN and trap enables (AAPCS, VFP "
			       "register usage conventions)",
			       (unsigned)before, (unsigned)after);
		return 1;
	}
	return 0;
}

/* No state here slows the caller down after a call, as x86's dirty upper
 * AVX halves do. */
int mg_abi_dirty_upper(const struct mg_abi_record *rec)
{
	(void)rec;
	return 0;
}

unsigned mg_abi_unjudged(const struct mg_abi_record *rec, int resumed)
{
	(void)rec;
	(void)resumed;
	return 0;
}
