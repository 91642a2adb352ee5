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
#else
#error "memgate: no ABI trampoline for this architecture"
#endif

/* How many floating-point states at entry the arch's trampoline sets
 * (docs/contract.md, C17): one, the caller's own, where it sets none. */
#ifndef MG_ABI_FP_ENTRIES
#define MG_ABI_FP_ENTRIES 1u
#define MG_ABI_FP_PROMISE ""
#endif

/* What the upper half of a 32-bit int argument holds: the ABI leaves it
 * undefined, so a variant must not read it. */
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
/* Optional rules, for mg_abi_prepare. */
enum mg_abi_rule {
	MG_ABI_RULE_UPPER = 1u << 0,	    /* x86: read XINUSE after the call */
	MG_ABI_RULE_PLATFORM_REG = 1u << 1, /* aarch64: x18 must be preserved */
	MG_ABI_RULE_NO_FPU = 1u << 2,	    /* x86-64 kernel code: no vector or x87 state */
	MG_ABI_RULE_X87_MODE = 1u << 3,	    /* x86: back in x87 mode (emms after MMX) */
	MG_ABI_RULE_ENTRY_FLAGS = 1u << 4,  /* enter with every arithmetic flag set */
};
/* Prepares a record for one call: the caller's control state (constant, so
 * read once), which optional rules (enum mg_abi_rule) apply, the stack
 * pointer's alignment at entry: MG_ABI_STACK_AT_ENTRY is `stack_offset`, a
 * multiple of MG_ABI_STACK_STEP (MG_ABI_STACK_STEP_KERNEL for kernel code)
 * below 64, and the floating-point state at entry: `fp_entry`, below
 * MG_ABI_FP_ENTRIES, in the arch's numbering (0: the caller's own). */
void mg_abi_prepare(struct mg_abi_record *rec, unsigned rules, unsigned stack_offset,
		    unsigned fp_entry);
/* Per-arch: the floating-point state at entry number `fp_entry`, in words
 * ("FPSR's flags all set (0x0800009f), FPCR round toward zero"). */
void mg_abi_fp_entry_describe(unsigned fp_entry, char *out, size_t size);

/* Per-arch: makes *out an abi-violation naming the first rule the call
 * broke (mg_verdict_abi), or returns 0. */
int mg_abi_violation(const struct mg_abi_record *rec, struct mg_verdict *out);
/* Per-arch: non-zero if the call left vector state that slows the caller
 * (x86: dirty upper AVX state, a missing vzeroupper). */
int mg_abi_dirty_upper(const struct mg_abi_record *rec);
#endif

#endif
