/* x86-64 and i386 ABI rules: the callee-saved registers (x86-64: rbx, rbp,
 * r12-r15; i386: ebx, esi, edi, ebp) are preserved (under a register
 * convention of the routine's own: every register it does not name), the stack pointer comes
 * back where it was, the direction flag is clear, and the control bits of
 * MXCSR and the x87 control word are as they were at entry, the case's
 * floating-point environment's (MXCSR's exception flags are the caller's
 * to lose). */
#include "abi.h"
#include "convention.h"
#include "cpu.h"
#include "variant.h"

#include <cpuid.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HWCAP2_FSGSBASE (1u << 1) /* asm/hwcap2.h */
#else
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

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
_Static_assert(offsetof(struct mg_abi_record, set_fpenv) == MG_ABI_SET_FPENV, "layout");
_Static_assert(offsetof(struct mg_abi_record, mxcsr_caller) == MG_ABI_MXCSR_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpucw_caller) == MG_ABI_FPUCW_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpenv_image) == MG_ABI_FPENV_IMAGE, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_fpu) == MG_ABI_CHECK_FPU, "layout");
_Static_assert(offsetof(struct mg_abi_record, fx_before) == MG_ABI_FX_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fx_after) == MG_ABI_FX_AFTER, "layout");
#if defined(__x86_64__)
_Static_assert(offsetof(struct mg_abi_record, sp_caller) == MG_ABI_SP_CALLER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fsbase_before) == MG_ABI_FSBASE_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fsbase_after) == MG_ABI_FSBASE_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fs_before) == MG_ABI_FS_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fs_after) == MG_ABI_FS_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_fs) == MG_ABI_CHECK_FS, "layout");
#else
_Static_assert(offsetof(struct mg_abi_record, gsbase_before) == MG_ABI_GSBASE_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, check_gs) == MG_ABI_CHECK_GS, "layout");
_Static_assert(offsetof(struct mg_abi_record, gs_before) == MG_ABI_GS_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, gs_after) == MG_ABI_GS_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, fs_tramp) == MG_ABI_FS_TRAMP, "layout");
_Static_assert(offsetof(struct mg_abi_record, gs_desc) == MG_ABI_GS_DESC, "layout");
_Static_assert(offsetof(struct mg_abi_record, gs_desc_ret) == MG_ABI_GS_DESC_RET, "layout");
_Static_assert(offsetof(struct mg_abi_record, gs_desc_thread) == MG_ABI_GS_DESC_THREAD, "layout");
#endif
_Static_assert(offsetof(struct mg_abi_record, conv) == MG_ABI_CONV, "layout");
_Static_assert(offsetof(struct mg_abi_record, conv_ret) == MG_ABI_CONV_RET, "layout");
_Static_assert(offsetof(struct mg_abi_record, regs_in) == MG_ABI_REGS_IN, "layout");
_Static_assert(offsetof(struct mg_abi_record, regs_out) == MG_ABI_REGS_OUT, "layout");

int mg_abi_has_avx;
int mg_abi_has_avx512;
int mg_abi_has_xinuse;
#if defined(__i386__)
int mg_abi_has_sse; /* x86-64 always has it; an i386 CPU may not */
#else
int mg_abi_has_fsgsbase;
#endif

static const char *const saved_names[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_NAMES;
static const uint64_t canaries[MG_ABI_SAVED_COUNT] = MG_ABI_SAVED_CANARIES;

static uint32_t caller_mxcsr;
static uint16_t caller_fpucw;

/* The floating-point environments a case may enter with (docs/contract.md,
 * C17, X6): what a caller may legally have set with fesetround,
 * feraiseexcept, feenableexcept or _MM_SET_FLUSH_ZERO_MODE before it calls
 * the routine. 0 is the caller's own (the defaults: MXCSR 0x1f80, x87
 * control word 0x037f, no flag set). No environment both unmasks an
 * exception and has its flag set: the next x87 instruction would trap. */
struct fpenv {
	const char *name;
	uint32_t mxcsr;
	uint16_t fpucw, fpusw;
};
static const struct fpenv fpenvs[MG_ABI_FPENV_COUNT] = {
	{"default", 0x1f80, 0x037f, 0},
	{"flags-set", 0x1fbf, 0x037f, 0x003f},	  /* every exception flag set */
	{"ftz-daz", 0x9fc0, 0x037f, 0},		  /* flush to zero, denormals are zero */
	{"round-up", 0x5f80, 0x0b7f, 0},	  /* toward +inf */
	{"round-down", 0x3fbf, 0x077f, 0x003f},	  /* toward -inf, the flags set */
	{"round-zero", 0x7f80, 0x0c7f, 0},	  /* toward zero; x87 in single precision */
	{"unmasked", 0x1900, 0x0372, 0},	  /* invalid, divide-by-zero, overflow trap */
};
/* Each environment's FLDENV image (28 bytes, the 32-bit format): the
 * control word, the status word, every register tagged empty. */
static unsigned char fpenv_images[MG_ABI_FPENV_COUNT][28];
static uint32_t mxcsr_mask = 0xffbf; /* what FXSAVE reports as 0: no DAZ */

const char *mg_abi_fpenv_name(unsigned fpenv)
{
	return fpenv < MG_ABI_FPENV_COUNT ? fpenvs[fpenv].name : NULL;
}

static uint32_t fpenv_mxcsr(unsigned fpenv)
{
	return fpenv ? fpenvs[fpenv].mxcsr & mxcsr_mask : caller_mxcsr;
}

void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size)
{
#if defined(__i386__)
	if (!mg_abi_has_sse) {
		snprintf(out, size, "the x87 control word 0x%04x, status word 0x%04x",
			 fpenv ? fpenvs[fpenv].fpucw : caller_fpucw, fpenvs[fpenv].fpusw);
		return;
	}
#endif
	snprintf(out, size, "MXCSR 0x%04x, the x87 control word 0x%04x, status word 0x%04x",
		 fpenv_mxcsr(fpenv), fpenv ? fpenvs[fpenv].fpucw : caller_fpucw,
		 fpenvs[fpenv].fpusw);
}

unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS])
{
	if (fpenv >= MG_ABI_FPENV_COUNT)
		fpenv = 0;
	words[0] = fpenv_mxcsr(fpenv);
#if defined(__i386__)
	if (!mg_abi_has_sse)
		words[0] = MG_ABI_NO_MXCSR;
#endif
	words[1] = fpenv ? fpenvs[fpenv].fpucw : caller_fpucw;
	words[2] = fpenvs[fpenv].fpusw;
	return 3;
}

void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv)
{
	if (fpenv == 0 || fpenv >= MG_ABI_FPENV_COUNT)
		return;
	/* Only FLDENV sets the x87 status word: for the flags, and so that no
	 * flag of the caller's traps under an unmasked exception. */
	rec->set_fpenv =
		fpenvs[fpenv].fpusw || (fpenvs[fpenv].fpucw & 0x3f) != 0x3f ? MG_ABI_FPENV_WHOLE : 1;
	rec->fpenv_image = fpenv_images[fpenv];
	rec->fpucw_before = fpenvs[fpenv].fpucw;
#if defined(__i386__)
	if (!mg_abi_has_sse)
		return;
#endif
	rec->mxcsr_before = rec->mxcsr_after = fpenv_mxcsr(fpenv);
}

static void put16(unsigned char *at, uint16_t x)
{
	at[0] = (unsigned char)x;
	at[1] = (unsigned char)(x >> 8);
}

/* The images, and which MXCSR bits this CPU takes (DAZ is not on every
 * one, and loading a bit it lacks faults). */
static void fpenv_init(int sse)
{
	_Alignas(16) unsigned char fx[512];

	for (unsigned k = 0; k < MG_ABI_FPENV_COUNT; k++) {
		memset(fpenv_images[k], 0, sizeof fpenv_images[k]);
		put16(fpenv_images[k] + 0, fpenvs[k].fpucw);
		put16(fpenv_images[k] + 4, fpenvs[k].fpusw);
		put16(fpenv_images[k] + 8, 0xffff);
	}
	if (!sse)
		return;
	memset(fx, 0, sizeof fx);
	__asm__ volatile("fxsave %0" : "=m"(fx));
	memcpy(&mxcsr_mask, fx + 28, sizeof mxcsr_mask);
	if (!mxcsr_mask)
		mxcsr_mask = 0xffbf;
}

/* Linux gives an interrupted thread its x87 state back from the signal
 * frame; qemu-i386 7.2's sigreturn drops it (the registers, control and
 * status words come back as FNINIT leaves them), so that a routine
 * stepped in a non-default x87 environment would be blamed for it.
 * Probed once: one signal, taken with a control word not the default. */
static int keeps_x87 = -1; /* -1: not probed (x86-64): kept */

#if defined(__i386__)
static void take_probe_signal(int signo)
{
	(void)signo;
}

static void x87_signal_probe(void)
{
	const int probe = SIGRTMIN + 2; /* the watchdog's is SIGRTMIN + 1 */
	const uint16_t odd = 0x0c7f;	/* round toward zero, single precision */
	struct sigaction sa = {.sa_handler = take_probe_signal}, old;
	uint16_t after;

	keeps_x87 = 1; /* as Linux does, if the probe cannot run */
	sigemptyset(&sa.sa_mask);
	if (sigaction(probe, &sa, &old) != 0)
		return;
	__asm__ volatile("fldcw %0" : : "m"(odd));
	raise(probe);
	__asm__ volatile("fnstcw %0" : "=m"(after));
	__asm__ volatile("fldcw %0" : : "m"(caller_fpucw));
	sigaction(probe, &old, NULL);
	keeps_x87 = after == odd;
}
#endif

/* Probed at start, in a clean x87 state, and on i386 only: memgate runs
 * x86-64 natively (and under gdb, scripts/repro --gdb, which the probe's
 * signal would stop). */
static int sigreturn_keeps_x87(void)
{
	return keeps_x87 != 0;
}

int mg_abi_fpenv_steppable(unsigned fpenv)
{
	return fpenv == 0 || fpenv >= MG_ABI_FPENV_COUNT ||
	       (fpenvs[fpenv].fpucw == 0x037f && !fpenvs[fpenv].fpusw) || sigreturn_keeps_x87();
}

#if defined(__x86_64__)
/* The calling thread's fs base, its thread pointer: constant for the
 * thread, so asked of the kernel once. */
static uint64_t thread_fsbase(void)
{
	static __thread uint64_t base;
	static __thread int known;

	if (!known) {
		syscall(SYS_arch_prctl, ARCH_GET_FS, &base);
		known = 1;
	}
	return base;
}

/* fs, the thread pointer (X13): the trampoline compares it after the call
 * with what this thread has, on every call where RDFSBASE reads the base,
 * else through arch_prctl on the sampled ones (the x87 probe's). */
static void prepare_fs(struct mg_abi_record *rec, unsigned rules)
{
	uint16_t fs;

	__asm__("movw %%fs, %0" : "=r"(fs));
	rec->fs_before = rec->fs_after = fs;
	rec->fsbase_before = rec->fsbase_after = thread_fsbase();
	rec->check_fs = !mg_abi_has_fsgsbase && (rules & MG_ABI_RULE_X87_MODE);
}

void mg_abi_threads_changed(void)
{
	/* x86-64 threads' bases are their own (FS_BASE, per thread). */
}
#else
/* gs, the thread pointer (I7). The trampoline reaches its own thread-local
 * words after the call through fs, loaded with a descriptor of its own
 * with the same base (Linux i386 user code leaves fs alone), so
 * that a callee that changed gs, its selector or its descriptor's base,
 * cannot take them away from it. One GDT entry for the process (the
 * kernel gives each thread three for TLS; the C library takes one), set
 * in each thread to that thread's base. */
static int tramp_entry = -1;
static __thread struct user_desc thread_gs; /* as the C library set it up */
static __thread uint16_t thread_tramp_fs;
/* Linux keeps the TLS descriptors per thread; qemu-user (7.2) keeps one
 * GDT for the process, so a thread's start (CLONE_SETTLS) or its
 * set_thread_area rewrites every thread's. Each thread goes on with the
 * base its gs and fs were loaded with, until they are loaded again, as a
 * sigreturn does: then it has another thread's TLS. Found by a probe
 * (descriptors_probe); where so, the thread that starts others writes its
 * own back after each start and end (mg_abi_threads_changed), and only it
 * may take the kernel's word for its base. */
static int descriptors_shared;
static __thread int writes_descriptors_back;
static pthread_mutex_t descriptor_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noreturn, cold)) void no_thread_pointer(const char *call)
{
	fprintf(stderr, "memgate: %s for the gs check (docs/contract.md, I7): %s\n", call,
		strerror(errno));
	exit(2);
}

/* The base the calling thread's gs was loaded with: %gs:0 holds the
 * thread pointer itself (the i386 TLS ABI). The kernel's copy may be
 * another thread's (descriptors_shared). */
static uint32_t loaded_gs_base(void)
{
	uint32_t base;

	__asm__ volatile("movl %%gs:0, %0" : "=r"(base));
	return base;
}

static uint32_t kernel_gs_base(void)
{
	struct user_desc now = {.entry_number = thread_gs.entry_number};

	if (syscall(SYS_get_thread_area, &now))
		no_thread_pointer("get_thread_area");
	return now.base_addr;
}

static void write_descriptors(void)
{
	struct user_desc own = thread_gs;

	if (syscall(SYS_set_thread_area, &own))
		no_thread_pointer("set_thread_area");
	own.entry_number = (unsigned)tramp_entry;
	if (syscall(SYS_set_thread_area, &own))
		no_thread_pointer("set_thread_area");
}

static void thread_pointer_init(void)
{
	struct user_desc own;
	uint16_t gs;

	__asm__("movw %%gs, %0" : "=r"(gs));
	memset(&thread_gs, 0, sizeof thread_gs);
	thread_gs.entry_number = gs >> 3;
	if (syscall(SYS_get_thread_area, &thread_gs))
		no_thread_pointer("get_thread_area");
	thread_gs.base_addr = loaded_gs_base();
	own = thread_gs;
	/* Where the descriptors are shared, another thread may rewrite the
	 * entry between the system call and the load that takes its base. */
	pthread_mutex_lock(&descriptor_lock);
	own.entry_number = (unsigned)tramp_entry; /* -1: the kernel picks a free one */
	if (syscall(SYS_set_thread_area, &own))
		no_thread_pointer("set_thread_area");
	tramp_entry = (int)own.entry_number;
	thread_tramp_fs = (uint16_t)(own.entry_number << 3 | 3);
	__asm__ volatile("movw %0, %%fs" : : "r"(thread_tramp_fs));
	pthread_mutex_unlock(&descriptor_lock);
}

static void *do_nothing(void *unused)
{
	return unused;
}

/* Whether a new thread's descriptor replaces the caller's in the kernel's
 * copy: a thread started and joined, before any other thread runs. */
static void descriptors_probe(void)
{
	pthread_t tid;

	if (pthread_create(&tid, NULL, do_nothing, NULL) != 0) {
		fprintf(stderr, "memgate: could not judge: cannot start a thread to probe the "
				"TLS descriptors (docs/contract.md, I7)\n");
		exit(2);
	}
	pthread_join(tid, NULL);
	descriptors_shared = kernel_gs_base() != thread_gs.base_addr;
	writes_descriptors_back = 1;
	if (descriptors_shared)
		write_descriptors();
}

void mg_abi_threads_changed(void)
{
	if (descriptors_shared && writes_descriptors_back) {
		pthread_mutex_lock(&descriptor_lock);
		write_descriptors();
		pthread_mutex_unlock(&descriptor_lock);
	}
}

/* The selector is compared after every call (a callee changes it with
 * one instruction); the base, which only a system call changes, is asked
 * of the kernel after the sampled calls (the x87 probe's), and read
 * through gs after the others: %gs:0 is the thread pointer itself (the
 * i386 TLS ABI), so a moved base reads another value there, or faults. */
static void prepare_gs(struct mg_abi_record *rec, unsigned rules)
{
	if (!thread_tramp_fs)
		thread_pointer_init();
	rec->fs_tramp = thread_tramp_fs;
	rec->gsbase_before = thread_gs.base_addr;
	/* Where the descriptors are shared (qemu-user), set_thread_area does
	 * not reload gs either, so %gs:0 cannot see a moved base: every call
	 * asks the kernel (the one thread that writes them back). */
	rec->check_gs = descriptors_shared ? writes_descriptors_back
					   : (rules & MG_ABI_RULE_X87_MODE) != 0;
	rec->gs_desc.entry_number = thread_gs.entry_number;
	rec->gs_desc.base_addr = thread_gs.base_addr; /* unless the check runs */
	rec->gs_desc_ret = 0;
	rec->gs_desc_thread = &thread_gs;
}
#endif

void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset)
{
	rec->stack_offset = stack_offset;
	rec->mxcsr_before = caller_mxcsr;
	rec->mxcsr_after = caller_mxcsr; /* what it stays without SSE */
	rec->mxcsr_caller = caller_mxcsr;
	rec->fpucw_before = caller_fpucw;
	rec->fpucw_caller = caller_fpucw;
	rec->set_fpenv = 0;
	rec->check_fpu = (rules & MG_ABI_RULE_NO_FPU) != 0;
	if (rec->check_fpu) {
		/* What FXSAVE leaves unwritten must compare equal: qemu-user
		 * (7.2) writes neither FOP nor the six reserved bytes after
		 * each register, which the hardware does. */
		memset(rec->fx_before, 0, MG_ABI_FX_XMM); /* the x87 part */
		memset(rec->fx_after, 0, MG_ABI_FX_XMM);
	}
	rules |= rec->check_fpu ? MG_ABI_RULE_UPPER : 0; /* ymm and zmm upper halves */
	rec->read_xinuse = (uint32_t)((rules & MG_ABI_RULE_UPPER) && mg_abi_has_xinuse);
	rec->check_x87 = (rules & MG_ABI_RULE_X87_MODE) != 0;
	rec->set_flags = (rules & MG_ABI_RULE_ENTRY_FLAGS) != 0;
	rec->fpusw_after = 0;
#if defined(__x86_64__)
	prepare_fs(rec, rules);
#else
	prepare_gs(rec, rules);
#endif
	rec->conv = 0; /* the C convention, unless mg_abi_set_convention says otherwise */
	rec->conv_ret = 0;
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
	thread_pointer_init(); /* the first thread picks the entry for all */
	descriptors_probe();
#endif
	if (sse)
		__asm__ volatile("stmxcsr %0" : "=m"(caller_mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(caller_fpucw));
	fpenv_init(sse);
#if defined(__i386__)
	x87_signal_probe();
#endif
	/* The OS must have enabled AVX state (XCR0) too, or vzeroupper faults:
	 * the feature detection checks both. */
	mg_abi_has_avx = (mg_cpu_detect() & MG_FEAT_AVX) != 0;
	mg_abi_has_avx512 = (mg_cpu_detect() & MG_FEAT_AVX512F) != 0;
#if defined(__x86_64__)
	/* The test hook runs the other path where the kernel has FSGSBASE. */
	mg_abi_has_fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0 &&
			      !getenv("MEMGATE_TEST_NO_FSGSBASE");
#endif
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

static const char *const gpr_names[MG_ABI_GPR_COUNT] = MG_ABI_GPR_NAMES;

void mg_abi_set_convention(struct mg_abi_record *rec, const struct mg_convention *conv,
			   const uintptr_t *operands)
{
	for (int i = 0; i < MG_ABI_GPR_COUNT; i++)
		rec->regs_in[i] = (conv->zero & (1u << i)) ? 0 : MG_ABI_CANARY_GPR(i);
	for (unsigned i = 0; i < conv->nargs; i++)
		rec->regs_in[conv->args[i]] = operands[i];
	rec->conv = 1;
	rec->conv_ret = conv->ret >= 0 ? (uint32_t)conv->ret : 0;
	rec->conv_may_change = mg_convention_may_change(conv);
	rec->conv_text = conv->text;
}

/* trampoline_x86_64.S, trampoline_i386.S */
void mg_abi_call_regs(const void *fn, mg_abi_gpr_t regs[MG_ABI_GPR_COUNT]);

uintptr_t mg_abi_call_direct_convention(const void *fn, const struct mg_convention *conv,
					const uintptr_t *operands)
{
	mg_abi_gpr_t regs[MG_ABI_GPR_COUNT];

	for (int i = 0; i < MG_ABI_GPR_COUNT; i++)
		regs[i] = (conv->zero & (1u << i)) ? 0 : MG_ABI_CANARY_GPR(i);
	for (unsigned i = 0; i < conv->nargs; i++)
		regs[conv->args[i]] = operands[i];
	mg_abi_call_regs(fn, regs);
	return conv->ret >= 0 ? (uintptr_t)regs[conv->ret] : 0;
}

/* Under a convention of the routine's own, every register it does not let
 * the call change comes back as it went in: the C convention's scratch
 * registers too (the inline assembly that calls such a routine tells the
 * compiler of no other). */
static int outside_convention(const struct mg_abi_record *rec, struct mg_verdict *out)
{
	for (int i = 0; i < MG_ABI_GPR_COUNT; i++) {
		if (i == MG_ABI_GPR_SP || (rec->conv_may_change & (1u << i)) ||
		    rec->regs_out[i] == rec->regs_in[i])
			continue;
		mg_verdict_abi(out, gpr_names[i], 1, 1, rec->regs_in[i], rec->regs_out[i],
			       "%s clobbered (0x%0*llx -> 0x%0*llx), which the declared convention "
			       "'%s' does not let it change",
			       gpr_names[i], MG_ABI_REG_DIGITS, (unsigned long long)rec->regs_in[i],
			       MG_ABI_REG_DIGITS, (unsigned long long)rec->regs_out[i],
			       rec->conv_text);
		return 1;
	}
	return 0;
}

/* The xmm registers exist (and were poisoned): always on x86-64. */
static int has_xmm(void)
{
#if defined(__i386__)
	return mg_abi_has_sse;
#else
	return 1;
#endif
}

/* The kernel contract's no-FPU rule (x86-64, i386). The trampoline poisons the
 * registers and compares images rather than reading XINUSE for x87 and SSE:
 * the harness's own libc calls leave that state in use before every call,
 * so XINUSE cannot tell the routine's use from the caller's; only the
 * upper halves of ymm/zmm, which vzeroupper cleans before the call, are
 * read from XINUSE. The x87 status, tag and last-instruction pointers
 * (FXSAVE bytes 0-23) and registers (32-159, poisoned before FNINIT, which
 * keeps their contents) come back as they were unless an x87 or MMX
 * instruction ran. */
static int fpu_breach(struct mg_verdict *out, const char *what)
{
	mg_verdict_abi(out, "fpu-state", 0, 0, 0, 0,
		       "kernel contract: touches %s without declaring it (kernel code may use "
		       "vector or x87 state only between kernel_fpu_begin and kernel_fpu_end; "
		       "declare it with --requires fpu)",
		       what);
	return 1;
}

/* Where sigreturn drops the x87 state (qemu-i386 7.2: sigreturn_keeps_x87),
 * a call that a signal returned into has its x87 registers and status as
 * FNINIT leaves them, whatever the routine did: they say nothing of its
 * x87 use, which is then not judged (docs/contract.md, IK3), and the
 * verdict says so (mg_abi_unjudged). */
static int x87_judged(int resumed)
{
	return !resumed || sigreturn_keeps_x87();
}

static int touched_fpu(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out)
{
	static const unsigned char poison[16] = {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
						 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5};
	char what[48];

	if (x87_judged(resumed) && (memcmp(rec->fx_before, rec->fx_after, 24) ||
				    memcmp(rec->fx_before + 32, rec->fx_after + 32, 128)))
		return fpu_breach(out, "the x87/MMX state");
	for (int i = 0; has_xmm() && i < MG_ABI_FX_XMM_COUNT; i++)
		if (memcmp(rec->fx_after + MG_ABI_FX_XMM + 16 * i, poison, 16)) {
			snprintf(what, sizeof what, "xmm%d", i);
			return fpu_breach(out, what);
		}
#if defined(__x86_64__)
	for (int i = 0; mg_abi_has_avx512 && i < 16; i++)
		if (memcmp(rec->hi16_after[i], poison, 16)) {
			snprintf(what, sizeof what, "xmm%d", 16 + i);
			return fpu_breach(out, what);
		}
#endif
	if (rec->read_xinuse && (rec->xinuse & XINUSE_AVX_UPPER))
		return fpu_breach(out, "the upper halves of the ymm/zmm registers");
	return 0;
}

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
	differ |= (rec->fsbase_after ^ rec->fsbase_before) | (uint16_t)(rec->fs_after ^ rec->fs_before);
#else
	differ |= (rec->gs_desc.base_addr ^ rec->gsbase_before) | (uint16_t)(rec->gs_after ^ rec->gs_before);
	differ |= (uint32_t)rec->gs_desc_ret;
#endif
	differ |= rec->check_fpu; /* the kernel contract's rule: looked at below */
	differ |= rec->conv;	  /* the registers of a convention of its own: likewise */
	return differ == 0;
}

/* The first rule the call broke, by name (out of line, so the usual answer
 * above needs no registers saved). */
static __attribute__((noinline, cold)) int first_broken_rule(const struct mg_abi_record *rec, int resumed,
							     struct mg_verdict *out)
{
	if (rec->conv ? outside_convention(rec, out) : clobbered_register(rec, out))
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
#if defined(__x86_64__)
	if (rec->fs_after != rec->fs_before || rec->fsbase_after != rec->fsbase_before) {
		int sel = rec->fs_after != rec->fs_before;

		mg_verdict_abi(out, "thread-pointer", 0, 1,
			       sel ? rec->fs_before : rec->fsbase_before,
			       sel ? rec->fs_after : rec->fsbase_after,
			       "changed fs, the thread pointer, which is reserved for the system "
			       "(its %s 0x%llx -> 0x%llx)",
			       sel ? "selector" : "base",
			       (unsigned long long)(sel ? rec->fs_before : rec->fsbase_before),
			       (unsigned long long)(sel ? rec->fs_after : rec->fsbase_after));
		return 1;
	}
#else
	if (rec->gs_desc_ret) {
		mg_verdict_set(out, MG_ERROR, "get_thread_area after the call failed (%s): gs unchecked",
			       strerror(-rec->gs_desc_ret));
		return 1;
	}
	if (rec->gs_after != rec->gs_before || rec->gs_desc.base_addr != rec->gsbase_before) {
		int sel = rec->gs_after != rec->gs_before;
		uint32_t was = sel ? rec->gs_before : rec->gsbase_before;
		uint32_t now = sel ? rec->gs_after : rec->gs_desc.base_addr;

		mg_verdict_abi(out, "thread-pointer", 0, 1, was, now,
			       "changed gs, the thread pointer, which is reserved for the system "
			       "(its %s 0x%x -> 0x%x)",
			       sel ? "selector" : "base", (unsigned)was, (unsigned)now);
		return 1;
	}
#endif
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
	if (rec->check_fpu && touched_fpu(rec, resumed, out))
		return 1;
	return 0;
}

int mg_abi_violation(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out)
{
	return !kept_every_rule(rec) && first_broken_rule(rec, resumed, out);
}

int mg_abi_dirty_upper(const struct mg_abi_record *rec)
{
	return rec->read_xinuse && (rec->xinuse & XINUSE_AVX_UPPER);
}

unsigned mg_abi_unjudged(const struct mg_abi_record *rec, int resumed)
{
	return rec->check_fpu && !x87_judged(resumed) ? MG_UNJUDGED_X87_RESUMED : 0;
}
