/* One guarded call of a variant, and the parts of its verdict that do not
 * depend on where its buffers live: faults, the ABI, the return value. The
 * sandbox (check.c) and the huge-length check (huge.c) share them. */
#ifndef MG_OUTCOME_H
#define MG_OUTCOME_H

#include "abi.h"
#include "case.h"
#include "fault.h"
#include "verdict.h"

struct mg_outcome {
	const struct mg_case *c;
	unsigned char *src, *dst; /* as passed to the variant */
	void *returned;
	struct mg_abi_record abi;
	struct mg_fault fault;
	int faulted;
};

/* Base per-call time limit, in ms; mg_timeout_for adds to it by length. */
extern unsigned mg_check_timeout_ms;
unsigned mg_timeout_for(size_t len);

/* Whether the platform register (aarch64 x18) must be preserved: by default
 * only by variants whose contract says they are kernel code. */
enum mg_platform_rule {
	MG_PLATFORM_AUTO,     /* per the variant's contract */
	MG_PLATFORM_RESERVED, /* for every variant */
	MG_PLATFORM_FREE,     /* for none */
};
extern enum mg_platform_rule mg_platform_rule;

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

	return ret == MG_RET_VOID || o->returned == (void *)(o->dst + want);
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
 * source), ABI, red zones, bytes, (memcheck), return value. `owned` is as
 * for mg_outcome_fault. */
void mg_judge(const struct mg_outcome *o, int owned, const struct mg_judge_checks *k,
	      struct mg_verdict *out);

/* The warnings a call that returned earns (enum mg_warning bits). */
unsigned mg_outcome_warnings(const struct mg_outcome *o);

#endif
