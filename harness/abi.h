/* ABI conformance: every variant is called through a per-arch assembly
 * trampoline that plants canaries in the registers and stack words the
 * callee must preserve, and records what it finds on return. Included by the
 * trampoline's assembly too, for the record's layout. */
#ifndef MG_ABI_H
#define MG_ABI_H

/* Offsets in struct mg_abi_record, for the assembly. */
#define MG_ABI_SAVED	    0 /* callee-saved registers after the call */
#define MG_ABI_SAVED_COUNT  6 /* x86-64: rbx rbp r12 r13 r14 r15 */
#define MG_ABI_SP_BEFORE    48
#define MG_ABI_SP_AFTER	    56
#define MG_ABI_FLAGS	    64 /* rflags after the call */
#define MG_ABI_FRAME	    72 /* the two stack words above the return address */
#define MG_ABI_XINUSE	    88 /* XGETBV(1) after the call, if supported */
#define MG_ABI_MXCSR_BEFORE 96 /* in: the caller's, restored after the call */
#define MG_ABI_MXCSR_AFTER  100
#define MG_ABI_FPUCW_BEFORE 104 /* in: likewise */
#define MG_ABI_FPUCW_AFTER  106
#define MG_ABI_READ_XINUSE  108 /* in: read XINUSE after this call */

/* The canaries: recognisable in a diagnosis, and different per register. */
#define MG_ABI_CANARY_RBX    0x1111111111111111
#define MG_ABI_CANARY_RBP    0x2222222222222222
#define MG_ABI_CANARY_R12    0x3333333333333333
#define MG_ABI_CANARY_R13    0x4444444444444444
#define MG_ABI_CANARY_R14    0x5555555555555555
#define MG_ABI_CANARY_R15    0x6666666666666666
#define MG_ABI_CANARY_FRAME0 0x7777777777777777
#define MG_ABI_CANARY_FRAME1 0x8888888888888888
/* What the upper half of a 32-bit int argument holds: the ABI leaves it
 * undefined, so a variant must not read it. */
#define MG_ABI_INT_GARBAGE 0xdeadbeef00000000

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct mg_abi_record {
	uint64_t saved[MG_ABI_SAVED_COUNT];
	uint64_t sp_before, sp_after;
	uint64_t flags;
	uint64_t frame[2];
	uint64_t xinuse;
	uint32_t mxcsr_before, mxcsr_after;
	uint16_t fpucw_before, fpucw_after;
	uint32_t read_xinuse; /* in: XGETBV(1) costs 10-15 ns, so not always */
};

_Static_assert(offsetof(struct mg_abi_record, sp_before) == MG_ABI_SP_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, flags) == MG_ABI_FLAGS, "layout");
_Static_assert(offsetof(struct mg_abi_record, frame) == MG_ABI_FRAME, "layout");
_Static_assert(offsetof(struct mg_abi_record, xinuse) == MG_ABI_XINUSE, "layout");
_Static_assert(offsetof(struct mg_abi_record, mxcsr_before) == MG_ABI_MXCSR_BEFORE, "layout");
_Static_assert(offsetof(struct mg_abi_record, fpucw_after) == MG_ABI_FPUCW_AFTER, "layout");
_Static_assert(offsetof(struct mg_abi_record, read_xinuse) == MG_ABI_READ_XINUSE, "layout");

/* Per-arch trampoline (abi_<arch>.S): calls fn(a0, a1, a2) with canaries in
 * place, fills *rec, restores the caller's state and returns fn's result. */
uintptr_t mg_abi_call(const void *fn, uintptr_t a0, uintptr_t a1, uintptr_t a2,
		      struct mg_abi_record *rec);

/* Set once, before the first call: what the trampoline may execute. */
extern int mg_abi_has_avx;    /* vzeroupper before the call */
extern int mg_abi_has_xinuse; /* the CPU has XGETBV with ECX = 1 */
void mg_abi_init(void);
/* Prepares a record for one call: the caller's control state (constant, so
 * read once), and whether to read XINUSE after the call. */
void mg_abi_prepare(struct mg_abi_record *rec, int read_xinuse);

/* Per-arch: describes the first rule the call broke, or returns 0. */
int mg_abi_violation(const struct mg_abi_record *rec, char *out, size_t size);
/* Per-arch: non-zero if the call left vector state that slows the caller
 * (x86: dirty upper AVX state, a missing vzeroupper). */
int mg_abi_dirty_upper(const struct mg_abi_record *rec);
#endif

#endif
