/* One guarded call of a variant, and the parts of its verdict that do not
 * depend on where its buffers live: faults, the ABI, the return value. The
 * sandbox (check.c) and the huge-length check (huge.c) share them. */
#ifndef MG_OUTCOME_H
#define MG_OUTCOME_H

#include "abi.h"
#include "case.h"
#include "fault.h"
#include "verdict.h"
#include "call.h"
#include "noreturn.h"
#include "timeout.h"

struct mg_outcome {
	const struct mg_case *c;
	unsigned char *src, *dst; /* as passed to the variant */
	void *returned;
	struct mg_abi_record abi;
	struct mg_fault fault;
	int faulted;
	unsigned long resumed; /* mg_fault_resumed() before the call */
};

/* Whether the sampled calls enter with every arithmetic flag set (1, the
 * default; 0 tells a routine that reads them from one that fails anyway). */
extern int mg_outcome_entry_flags;

/* Whether the platform register (aarch64 x18) must be preserved: by default
 * only by variants whose contract says they are kernel code. */
enum mg_platform_rule {
	MG_PLATFORM_AUTO,     /* per the variant's contract */
	MG_PLATFORM_RESERVED, /* for every variant */
	MG_PLATFORM_FREE,     /* for none */
};
extern enum mg_platform_rule mg_platform_rule;

/* Reading the AVX upper state costs about as much as a short case, so it is
 * read on every call of a variant that declares vector features, and on one
 * case in 16 (by seed, so a replay sees the same) of the others; so is the
 * x87 probe (x86: is the CPU back in x87 mode after the call?), and those
 * calls enter with every arithmetic flag set (NZCV on aarch64), which the
 * ABIs leave undefined at entry. */
static inline int mg_outcome_wants_upper_check(const struct mg_case *c)
{
	const unsigned vector = MG_FEAT_AVX | MG_FEAT_AVX2 | MG_FEAT_AVX512F | MG_FEAT_AVX512BW;

	return (c->variant->features & vector) || (c->seed & 15) == 0;
}

/* The platform register (aarch64 x18) is the kernel's: user-space code may
 * use it on Linux, kernel code must leave it alone (shadow call stack). */
static inline int mg_outcome_platform_register_reserved(const struct mg_case *c)
{
	if (mg_platform_rule == MG_PLATFORM_AUTO)
		return c->variant->contract.kernel != 0;
	return mg_platform_rule == MG_PLATFORM_RESERVED;
}

/* Kernel code may not touch vector or x87 state unless it declares that it
 * runs between kernel_fpu_begin and kernel_fpu_end (x86-64), or FP/SIMD
 * registers outside kernel_neon_begin and kernel_neon_end (aarch64). */
static inline int mg_outcome_fpu_forbidden(const struct mg_case *c)
{
	unsigned kernel = c->variant->contract.kernel;

	return (kernel & MG_KERNEL) && !(kernel & MG_KERNEL_USES_FPU);
}

static inline unsigned mg_outcome_abi_rules(const struct mg_case *c)
{
	return (mg_outcome_wants_upper_check(c) ? MG_ABI_RULE_UPPER | MG_ABI_RULE_X87_MODE : 0) |
	       (mg_outcome_wants_upper_check(c) && mg_outcome_entry_flags ? MG_ABI_RULE_ENTRY_FLAGS
									  : 0) |
	       (mg_outcome_platform_register_reserved(c) ? MG_ABI_RULE_PLATFORM_REG : 0) |
	       (mg_outcome_fpu_forbidden(c) ? MG_ABI_RULE_NO_FPU : 0);
}

/* mg_outcome_call in three steps, for a caller that keeps sigsetjmp in its
 * own frame (a call fewer per case, which shows at 1 to 32 bytes):
 *	mg_outcome_arm(o, dst, src);
 *	if (sigsetjmp(mg_fault_jmp, 0))
 *		mg_outcome_faulted(o);
 *	else
 *		mg_outcome_run(o, clean_int);
 * The frame that calls sigsetjmp must still be live when a fault arrives. */
static inline void mg_outcome_arm(struct mg_outcome *o, unsigned char *dst, unsigned char *src)
{
	o->dst = dst;
	o->src = src;
	o->faulted = 0;
	mg_noreturn_called = NULL;
	o->resumed = mg_fault_resumed();
	mg_abi_prepare(&o->abi, mg_outcome_abi_rules(o->c), o->c->stack_offset);
	mg_abi_set_fpenv(&o->abi, o->c->fpenv);
}

static inline void mg_outcome_run(struct mg_outcome *o, int clean_int)
{
	const struct mg_case *c = o->c;

	mg_call_begin(mg_case_timeout_ms(c));
	o->returned = mg_call(c->variant, mg_tagged(o->dst, c->tag), mg_tagged(o->src, mg_src_tag(c)),
			      c->value, c->len, clean_int, &o->abi);
	mg_call_end();
}

void mg_outcome_faulted(struct mg_outcome *o);

/* Whether a signal's handler returned into the call (mg_abi_violation). */
static inline int mg_outcome_resumed(const struct mg_outcome *o)
{
	return mg_fault_resumed() != o->resumed;
}

/* Calls the case's variant on (dst, src) through the ABI trampoline, with
 * faults caught and the watchdog armed. memset's int gets garbage in the
 * upper half of its register unless `clean_int`. */
void mg_outcome_call(struct mg_outcome *o, unsigned char *dst, unsigned char *src, int clean_int);

/* Names the fault of a faulted call. `owned` says the fault address lies in
 * memory the caller laid out (buffers, guard pages), where an access is
 * blamed on the nearer buffer; any other fault is a crash. */
void mg_outcome_fault(const struct mg_outcome *o, int owned, struct mg_verdict *out);

/* Whether the call returned what its operation returns: dst, dst + len
 * (mempcpy), or anything for a void routine. */
static inline int mg_outcome_returned_right(const struct mg_outcome *o)
{
	enum mg_ret ret = o->c->variant->ret;
	size_t want = ret == MG_RET_DST_END ? o->c->len : 0;

	return ret == MG_RET_VOID || o->returned == mg_tagged(o->dst + want, o->c->tag);
}

/* Each returns 1 and fills *out if the call broke its rule. */
int mg_outcome_abi(const struct mg_outcome *o, struct mg_verdict *out);
int mg_outcome_return(const struct mg_outcome *o, struct mg_verdict *out);

/* The checks that depend on where the buffers live and how the expected
 * bytes are known; each returns 1 and fills *out if the call broke its
 * rule. `memory` (memcheck's) may be NULL. */
struct mg_judge_checks {
	int (*source)(void *ctx, struct mg_verdict *out); /* NULL: a sealed source */
	int (*red_zones)(void *ctx, struct mg_verdict *out);
	int (*bytes)(void *ctx, struct mg_verdict *out);
	int (*memory)(void *ctx, struct mg_verdict *out);
	void *ctx;
};

/* The one judge of a call, for the sandbox and the huge-length check alike,
 * in the precedence of docs/design.md (Verdicts): fault (and a changed
 * source), ABI, what a situation judged after the ABI saw (the stops of an
 * interrupted call, interrupt.h), red zones, bytes, (memcheck), return
 * value, what a situation judged last saw (the other threads, thread.h).
 * `owned` is as for mg_outcome_fault. */
void mg_judge(const struct mg_outcome *o, int owned, const struct mg_judge_checks *k,
	      struct mg_verdict *out);

/* The warnings a call that returned earns (enum mg_warning bits). */
unsigned mg_outcome_warnings(const struct mg_outcome *o);
/* The parts of a call that returned that this machine could not judge
 * (enum mg_unjudged bits). */
unsigned mg_outcome_unjudged(const struct mg_outcome *o);

#endif
