/* x86-64 and i386 ABI rules: the callee-saved registers (x86-64: rbx, rbp,
 * r12-r15; i386: ebx, esi, edi, ebp) are preserved, the stack pointer comes
 * back where it was, the direction flag is clear, and the control bits of
 * MXCSR and the x87 control word are unchanged (MXCSR's exception flags are
 * the caller's to lose). */
#include "abi.h"
#include "cpu.h"
#include "variant.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#define X86_FLAGS_DF	 (1u << 10)
#define MXCSR_CONTROL	 0xffc0u		 /* DAZ, exception masks, rounding, FZ */
#define XINUSE_AVX_UPPER ((1u << 2) | (1u << 6)) /* YMM_Hi128, ZMM_Hi256 */
#define X87_SW_STACK_FAULT 0x40u		 /* SF: with C1, an overflow */

/* The record's offsets, as the trampoline of either x86 ABI uses them. */
_Static_assert(offsetof(struct mg_abi_record, sp_before) == MG_ABI_SP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, flags) == MG_ABI_FLAGS, "layout");
_Static_assert(offsetof(struct mg_abi_record, frame) == MG_ABI_FRAME, "layout");
_Static_assert(offsetof(struct mg_abi_record, xinuse) == MG_ABI_XINUSE, "layout");
_Static_assert(offsetof(struct mg_abi_record, mxcsr_before) == MG_ABI_MXCSR_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpucw_after) == MG_ABI_FPUCW_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, read_xinuse) == MG_ABI_READ_XINUSE, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_x87) == MG_ABI_CHECK_X87, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpusw_after) == MG_ABI_FPUSW_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, set_flags) == MG_ABI_SET_FLAGS, "layout");
_Static_assert(offsetof(struct mg_abi_record, stack_offset) == MG_ABI_STACK_OFFSET, "layout");
#if defined(__x86_64__)
_Static_assert(offsetof(struct mg_abi_record, sp_caller) == MG_ABI_SP_CALLER, "layout");
#endif

int mg_abi_has_avx;
int mg_abi_has_avx512;
int mg_abi_has_xinuse;
#if defined(__i386__)
int mg_abi_has_sse; /* x86-64 always has it; an i386 CPU may not */
#endif

static const char *const saved_names[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_NAMES;
static const uint64_t canaries[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_CANARIES;

static uint32_t caller_mxcsr;
static uint16_t caller_fpucw;

void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset,
		    unsigned fp_entry)
{
	(void)fp_entry; /* MG_ABI_FP_ENTRIES is 1 here: the caller's state */
	rec->stack_offset = stack_offset;
	rec->mxcsr_before = caller_mxcsr;
	rec->mxcsr_after = caller_mxcsr; /* what it stays without SSE */
	rec->fpucw_before = caller_fpucw;
#if defined(__x86_64__)
	rec->check_fpu = (rules & MG_ABI_RULE_NO_FPU) != 0;
	rules |= rec->check_fpu ? MG_ABI_RULE_UPPER : 0; /* ymm and zmm upper halves */
#endif
	rec->read_xinuse = (uint32_t)((rules & MG_ABI_RULE_UPPER) && mg_abi_has_xinuse);
	rec->check_x87 = (rules & MG_ABI_RULE_X87_MODE) != 0;
	rec->set_flags = (rules & MG_ABI_RULE_ENTRY_FLAGS) != 0;
	rec->fpusw_after = 0;
}

void mg_abi_fp_entry_describe(unsigned fp_entry, char *out, size_t size)
{
	(void)fp_entry; /* the only one, 0 */
	snprintf(out, size, "the caller's MXCSR and x87 control word");
}

/* MXCSR comes with SSE: always there on x86-64, not on every i386 CPU. */
static int cpu_has_sse(void)
{
#if defined(__i386__)
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (d & bit_SSE);
#else
	return 1;
#endif
}

/* XINUSE is worth reading only if it reads clean right after vzeroupper:
 * qemu-user reports every enabled state component as in use, which would
 * flag every variant. (Nothing of the harness lives in the upper halves:
 * it is not built for AVX.) */
static int xinuse_tracks_upper(void)
{
	uint32_t lo, hi;

	__asm__ volatile("vzeroupper\n\txgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return !(lo & XINUSE_AVX_UPPER);
}

void mg_abi_init(void)
{
	unsigned a, b, c, d;
	int sse = cpu_has_sse();

#if defined(__i386__)
	mg_abi_has_sse = sse;
#endif
	if (sse)
		__asm__ volatile("stmxcsr %0" : "=m"(caller_mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(caller_fpucw));
	/* The OS must have enabled AVX state (XCR0) too, or vzeroupper faults:
	 * the feature detection checks both. */
	mg_abi_has_avx = (mg_cpu_detect() & MG_FEAT_AVX) != 0;
	mg_abi_has_avx512 = (mg_cpu_detect() & MG_FEAT_AVX512F) != 0;
	if (mg_abi_has_avx && __get_cpuid_count(0xd, 1, &a, &b, &c, &d))
		mg_abi_has_xinuse = (a & (1u << 2)) != 0 && xinuse_tracks_upper();
}

static int clobbered_register(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		if (rec->saved[i] != canaries[i]) {
			mg_verdict_abi(out, saved_names[i], 1, 1, canaries[i], rec->saved[i],
				       "%s clobbered (0x%0*llx -> 0x%0*llx)", saved_names[i],
				       MG_ABI_REG_DIGITS, (unsigned long long)canaries[i],
				       MG_ABI_REG_DIGITS, (unsigned long long)rec->saved[i]);
			return 1;
		}
	return 0;
}

#if defined(__x86_64__)
/* The kernel contract's no-FPU rule (x86-64). The trampoline poisons the
 * registers and compares images rather than reading XINUSE for x87 and SSE:
 * the harness's own libc calls leave that state in use before every call,
 * so XINUSE cannot tell the routine's use from the caller's; only the
 * upper halves of ymm/zmm, which vzeroupper cleans before the call, are
 * read from XINUSE. The x87 status, tag and last-instruction pointers
 * (FXSAVE bytes 0-23) and registers (32-159) come back as FNINIT left them
 * unless an x87 or MMX instruction ran. */
static int fpu_breach(struct mg_verdict *out, const char *what)
{
	mg_verdict_abi(out, "fpu-state", 0, 0, 0, 0,
		       "kernel contract: touches %s without declaring it (kernel code may use "
		       "vector or x87 state only between kernel_fpu_begin and kernel_fpu_end; "
		       "declare it with --requires fpu)",
		       what);
	return 1;
}

static int touched_fpu(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	static const unsigned char poison[16] = {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
						 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5};
	char what[48];

	if (memcmp(rec->fx_before, rec->fx_after, 24) ||
	    memcmp(rec->fx_before + 32, rec->fx_after + 32, 128))
		return fpu_breach(out, "the x87/MMX state");
	for (int i = 0; i < 16; i++)
		if (memcmp(rec->fx_after + MG_ABI_FX_XMM + 16 * i, poison, 16)) {
			snprintf(what, sizeof what, "xmm%d", i);
			return fpu_breach(out, what);
		}
	for (int i = 0; mg_abi_has_avx512 && i < 16; i++)
		if (memcmp(rec->hi16_after[i], poison, 16)) {
			snprintf(what, sizeof what, "xmm%d", 16 + i);
			return fpu_breach(out, what);
		}
	if (rec->read_xinuse && (rec->xinuse & XINUSE_AVX_UPPER))
		return fpu_breach(out, "the upper halves of the ymm/zmm registers");
	return 0;
}
#endif

/* Whether the call kept every rule below, in one pass with no branch per
 * rule: this is asked after every call and nearly always answers yes (the
 * rules one by one cost about 80 instructions a call). */
static int kept_every_rule(const struct mg_abi_record *rec)
{
	uint64_t differ = 0;

	for (int i = 0; i < MG_ABI_SAVED_COUNT; i++)
		differ |= rec->saved[i] ^ canaries[i];
	differ |= rec->sp_after ^ rec->sp_before;
	differ |= (rec->frame[0] ^ MG_ABI_CANARY_FRAME0) | (rec->frame[1] ^ MG_ABI_CANARY_FRAME1);
	differ |= rec->flags & X86_FLAGS_DF;
	differ |= (rec->mxcsr_after ^ rec->mxcsr_before) & MXCSR_CONTROL;
	differ |= (uint16_t)(rec->fpucw_after ^ rec->fpucw_before);
	differ |= rec->fpusw_after & X87_SW_STACK_FAULT;
#if defined(__x86_64__)
	differ |= rec->check_fpu; /* the kernel contract's rule: looked at below */
#endif
	return differ == 0;
}

/* The first rule the call broke, by name (out of line, so the usual answer
 * above needs no registers saved). */
static __attribute__((noinline, cold)) int first_broken_rule(const struct mg_abi_record *rec,
							     struct mg_verdict *out)
{
	if (clobbered_register(rec, out))
		return 1;
	if (rec->sp_after != rec->sp_before) {
		mg_verdict_abi(out, "stack-pointer", 0, 1, rec->sp_before, rec->sp_after,
			       "stack pointer moved by %+lld bytes",
			       (long long)rec->sp_after - (long long)rec->sp_before);
		return 1;
	}
	if (rec->frame[0] != MG_ABI_CANARY_FRAME0 || rec->frame[1] != MG_ABI_CANARY_FRAME1) {
		mg_verdict_abi(out, "caller-frame", 0, 0, 0, 0,
			       "the caller's stack frame " MG_ABI_FRAME_WHERE " was overwritten");
		return 1;
	}
	if (rec->flags & X86_FLAGS_DF) {
		mg_verdict_abi(out, "direction-flag", 0, 0, 0, 0, "direction flag left set");
		return 1;
	}
	if ((rec->mxcsr_after ^ rec->mxcsr_before) & MXCSR_CONTROL) {
		mg_verdict_abi(out, "mxcsr", 0, 1, rec->mxcsr_before, rec->mxcsr_after,
			       "MXCSR control bits changed (0x%04x -> 0x%04x)", rec->mxcsr_before,
			       rec->mxcsr_after);
		return 1;
	}
	if (rec->fpucw_after != rec->fpucw_before) {
		mg_verdict_abi(out, "x87-cw", 0, 1, rec->fpucw_before, rec->fpucw_after,
			       "x87 control word changed (0x%04x -> 0x%04x)", rec->fpucw_before,
			       rec->fpucw_after);
		return 1;
	}
	if (rec->fpusw_after & X87_SW_STACK_FAULT) {
		mg_verdict_abi(out, "x87-mode", 0, 0, 0, 0,
			       "left the x87 registers in MMX mode (no emms before it returned): the "
			       "CPU must be in x87 mode on return, and the caller's next x87 push "
			       "overflows the stack");
		return 1;
	}
#if defined(__x86_64__)
	if (rec->check_fpu && touched_fpu(rec, out))
		return 1;
#endif
	return 0;
}

int mg_abi_violation(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	return !kept_every_rule(rec) && first_broken_rule(rec, out);
}

int mg_abi_dirty_upper(const struct mg_abi_record *rec)
{
	return rec->read_xinuse && (rec->xinuse & XINUSE_AVX_UPPER);
}
