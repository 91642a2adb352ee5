/* ABI conformance: every variant is called through a per-arch assembly
 * trampoline that plants canaries in the registers and stack words the
 * callee must preserve, and records what it finds on return. Included by the
 * trampoline's assembly too, for the record's layout. */
#ifndef MG_ABI_H
#define MG_ABI_H

/* The record's layout and the canaries are per arch. */
#if defined(__x86_64__)
#include "trampoline_x86_64.h"
#elif defined(__i386__)
#include "trampoline_i386.h"
#elif defined(__aarch64__)
#include "trampoline_aarch64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "trampoline_riscv64.h"
#elif defined(__arm__)
#include "trampoline_armhf.h"
#else
#error "memgate: no ABI trampoline for this architecture"
#endif

/* What the upper half of a 32-bit int argument holds: the ABI leaves it
 * undefined, so a variant must not read it. (An ABI that defines it,
 * sign-extending the int, says so with MG_ABI_INT_SIGN_EXTENDED.) */
#define MG_ABI_INT_GARBAGE 0xdeadbeef00000000

#ifndef __ASSEMBLER__
#include "verdict.h"

#include <stddef.h>
#include <stdint.h>

/* Per-arch trampoline (arch/ISA/trampoline_<arch>.S): calls fn(a0, a1, a2) with canaries in
 * place, fills *rec, restores the caller's state and returns fn's result. */
uintptr_t mg_abi_call(const void *fn, uintptr_t a0, uintptr_t a1, uintptr_t a2,
		      struct mg_abi_record *rec);

/* Set once, before the first call: what the trampoline may execute. */
extern int mg_abi_has_avx;    /* vzeroupper before the call */
extern int mg_abi_has_avx512; /* x86-64: xmm16-31 exist (the no-FPU rule) */
extern int mg_abi_has_xinuse; /* the CPU has XGETBV with ECX = 1 */
void mg_abi_init(void);
/* Called by a thread after it started others and after they ended (the
 * watchdog, engine/fault.c; the workers, engine/thread.c): puts back what
 * a thread's start may have changed of the caller's (i386 under
 * qemu-user, whose TLS descriptors are one per process). */
void mg_abi_threads_changed(void);
/* Optional rules, for mg_abi_prepare. */
enum mg_abi_rule {
	MG_ABI_RULE_UPPER = 1u << 0,	    /* x86: read XINUSE after the call */
	MG_ABI_RULE_PLATFORM_REG = 1u << 1, /* aarch64: x18 must be preserved */
	MG_ABI_RULE_NO_FPU = 1u << 2,	    /* kernel code: no vector, x87 or FP state */
	MG_ABI_RULE_X87_MODE = 1u << 3,	    /* x86: back in x87 mode (emms after MMX) */
	MG_ABI_RULE_ENTRY_FLAGS = 1u << 4,  /* enter with every arithmetic flag set */
};
/* Prepares a record for one call: the caller's control state (constant, so
 * read once), which optional rules (enum mg_abi_rule) apply, and the stack
 * pointer's alignment at entry: MG_ABI_STACK_AT_ENTRY is `stack_offset`, a
 * multiple of MG_ABI_STACK_STEP (MG_ABI_STACK_STEP_KERNEL for kernel code)
 * below 64. */
void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset);

/* The floating-point environments a case may enter with (docs/contract.md,
 * C17, X6; the case's fpenv): 0 is the caller's own, the default; an
 * arch's header that has others defines MG_ABI_FPENV_COUNT, and its abi.c
 * the three functions below. */
#define MG_ABI_FPENV_WORDS 4
#define MG_ABI_NO_MXCSR	   UINT64_MAX
#ifndef MG_ABI_FPENV_COUNT
#define MG_ABI_FPENV_COUNT 1
#define MG_ABI_FPENV_NAMES "default"
static inline const char *mg_abi_fpenv_name(unsigned fpenv)
{
	return fpenv ? NULL : "default";
}
static inline void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size)
{
	(void)fpenv;
	if (size)
		*out = '\0';
}
static inline void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv)
{
	(void)rec;
	(void)fpenv;
}
static inline int mg_abi_fpenv_steppable(unsigned fpenv)
{
	(void)fpenv;
	return 1;
}
static inline unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS])
{
	(void)fpenv;
	(void)words;
	return 0;
}
#else
/* "default", "round-up", ...; NULL past the last. */
const char *mg_abi_fpenv_name(unsigned fpenv);
/* Its registers, for a diagnosis: "MXCSR 0x5f80, the x87 control word ...". */
void mg_abi_fpenv_describe(unsigned fpenv, char *out, size_t size);
/* After mg_abi_prepare: the call enters with environment `fpenv`, and its
 * control bits are what the call must leave as it found them. */
void mg_abi_set_fpenv(struct mg_abi_record *rec, unsigned fpenv);
/* Whether a call in environment `fpenv` keeps it across the signals of
 * the interrupt situation here (x86 under qemu-i386 7.2: not the x87
 * part, which its sigreturn drops). */
int mg_abi_fpenv_steppable(unsigned fpenv);
/* The registers a program loads to enter `fpenv` itself (the standalone
 * reproducer: targets/emit_c.c), in the arch's order: x86 MXCSR
 * (MG_ABI_NO_MXCSR on an i386 CPU without SSE), the x87 control word and
 * status word; aarch64 FPCR and FPSR; riscv64 frm, fflags, vxrm, vxsat;
 * armhf FPSCR.
 * Returns how many it wrote. */
unsigned mg_abi_fpenv_words(unsigned fpenv, uint64_t words[MG_ABI_FPENV_WORDS]);
#endif

#ifdef MG_ABI_GPR_NAMES
/* Per-arch, where the record has a register image (MG_ABI_GPR_NAMES):
 * after mg_abi_prepare, the call enters with the convention's registers,
 * operands[i] in its args[i], and every register the convention does not
 * let the call change is checked. */
struct mg_convention;
void mg_abi_set_convention(struct mg_abi_record *rec, const struct mg_convention *conv,
			   const uintptr_t *operands);
/* Per-arch: calls fn directly with the convention (no check, reentrant:
 * for the calls from a signal handler, other threads, the benchmarks) and
 * returns its result register (0 for none). */
uintptr_t mg_abi_call_direct_convention(const void *fn, const struct mg_convention *conv,
					const uintptr_t *operands);
#endif

/* Per-arch: makes *out an abi-violation naming the first rule the call
 * broke (mg_verdict_abi), or returns 0. `resumed`: a signal's handler
 * returned into the call (a step, a fault resumed at its fixup), so that
 * what the kernel, or the emulator, gives back from the signal frame is
 * what the call returned with. */
int mg_abi_violation(const struct mg_abi_record *rec, int resumed, struct mg_verdict *out);
/* Per-arch: non-zero if the call left vector state that slows the caller
 * (x86: dirty upper AVX state, a missing vzeroupper). */
int mg_abi_dirty_upper(const struct mg_abi_record *rec);
/* Per-arch: the rules this call's record could not be judged by here
 * (enum mg_unjudged bits), with `resumed` as for mg_abi_violation. */
unsigned mg_abi_unjudged(const struct mg_abi_record *rec, int resumed);
#endif

#endif
