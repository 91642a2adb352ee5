#include "outcome.h"
#include "call.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

unsigned mg_check_timeout_ms = 1000;
enum mg_platform_rule mg_platform_rule = MG_PLATFORM_AUTO;

/* 1 ms more per 4 KiB, which even a byte loop under valgrind meets; past
 * 32 MiB only per 256 KiB, so a 4 GiB call gets seconds, not minutes. */
unsigned mg_timeout_for(size_t len)
{
	size_t extra = len >> 12;

	if (extra > 8192)
		extra = 8192 + (len >> 18);
	return mg_check_timeout_ms + (unsigned)extra;
}

/* Reading the AVX upper state costs about as much as a short case, so it is
 * read on every call of a variant that declares vector features, and on one
 * case in 16 (by seed, so a replay sees the same) of the others. */
static int wants_upper_check(const struct mg_case *c)
{
	const unsigned vector = MG_FEAT_AVX | MG_FEAT_AVX2 | MG_FEAT_AVX512F | MG_FEAT_AVX512BW;

	return (c->variant->features & vector) || (c->seed & 15) == 0;
}

/* The platform register (aarch64 x18) is the kernel's: user-space code may
 * use it on Linux, kernel code must leave it alone (shadow call stack). */
static int platform_register_reserved(const struct mg_case *c)
{
	if (mg_platform_rule == MG_PLATFORM_AUTO)
		return c->variant->contract.kernel != 0;
	return mg_platform_rule == MG_PLATFORM_RESERVED;
}

static unsigned abi_rules(const struct mg_case *c)
{
	return (wants_upper_check(c) ? MG_ABI_RULE_UPPER : 0) |
	       (platform_register_reserved(c) ? MG_ABI_RULE_PLATFORM_REG : 0);
}

/* sigsetjmp needs a frame that is live when the fault arrives: this one. */
void mg_outcome_call(struct mg_outcome *o, unsigned char *dst, unsigned char *src, int clean_int)
{
	const struct mg_case *c = o->c;

	o->dst = dst;
	o->src = src;
	o->faulted = 0;
	mg_abi_prepare(&o->abi, abi_rules(c));
	if (sigsetjmp(mg_fault_jmp, 0)) {
		mg_fault_take(&o->fault);
		o->faulted = 1;
		return;
	}
	mg_call_begin(mg_timeout_for(c->len));
	o->returned = mg_call(c->variant, dst, src, c->value, c->len, clean_int, &o->abi);
	mg_call_end();
}

void mg_where(char *out, size_t size, const char *name, const unsigned char *base, size_t len,
	      const unsigned char *addr)
{
	if (addr < base)
		snprintf(out, size, "%s, %td byte%s before it (at %s-%td)", name, base - addr,
			 base - addr == 1 ? "" : "s", name, base - addr);
	else if (addr >= base + len)
		snprintf(out, size, "%s, %td byte%s past the end (at %s+%td, len %zu)", name,
			 addr - (base + len) + 1, addr - (base + len) ? "s" : "", name, addr - base,
			 len);
	else
		snprintf(out, size, "%s, inside it (at %s+%td)", name, name, addr - base);
}

static const char *fault_kind(const struct mg_fault *f)
{
	if (f->general_protection)
		return " (general-protection fault, e.g. a misaligned aligned-vector access)";
	switch (f->signo) {
	case SIGILL: return " (illegal instruction: a CPU feature missing?)";
	case SIGBUS: return " (bus error)";
	case SIGFPE: return " (arithmetic exception)";
	default: return "";
	}
}

static void crash(const struct mg_outcome *o, struct mg_verdict *out)
{
	const struct mg_fault *f = &o->fault;
	const char *entry = (const char *)(uintptr_t)o->c->variant->entry.copy;
	ptrdiff_t off = (const char *)f->pc - entry;
	char pc[96];

	if (off >= 0 && off < 0x10000)
		snprintf(pc, sizeof pc, "%s+0x%tx", o->c->variant->symbol, off);
	else
		snprintf(pc, sizeof pc, "%p", f->pc);
	mg_verdict_set(out, MG_CRASH, "%s%s at pc %s, address %p", mg_signal_name(f->signo),
		       fault_kind(f), pc, f->addr);
}

/* How far `a` is from [base, base + len): 0 inside it. */
static size_t distance(const unsigned char *base, size_t len, const unsigned char *a)
{
	if (a < base)
		return (size_t)(base - a);
	return a >= base + len ? (size_t)(a - (base + len)) + 1 : 0;
}

/* A page fault in owned memory: which buffer, which side, how far. */
static void classify_page_fault(const struct mg_outcome *o, struct mg_verdict *out)
{
	const unsigned char *a = o->fault.addr;
	const struct mg_case *c = o->c;
	int has_src = mg_op_has_src(c->variant->op);
	int is_write = o->fault.access == MG_ACCESS_WRITE;
	char at[160];

	if (is_write && has_src && !c->overlap && distance(o->src, c->len, a) == 0) {
		mg_verdict_set(out, MG_SRC_MODIFIED,
			       "wrote src+%td (len %zu); the source is read-only during the call",
			       a - o->src, c->len);
		return;
	}
	/* A stray access is blamed on the nearer buffer. */
	if (has_src && distance(o->src, c->len, a) < distance(o->dst, c->len, a))
		mg_where(at, sizeof at, "src", o->src, c->len, a);
	else
		mg_where(at, sizeof at, "dst", o->dst, c->len, a);
	mg_verdict_set(out, is_write ? MG_OOB_WRITE : MG_OOB_READ, "%s", at);
}

void mg_outcome_fault(const struct mg_outcome *o, int owned, struct mg_verdict *out)
{
	const struct mg_fault *f = &o->fault;

	if (f->signo == mg_watchdog_signal())
		mg_verdict_set(out, MG_TIMEOUT, "no return within %u ms (watchdog)",
			       mg_timeout_for(o->c->len));
	else if (owned && f->signo == SIGSEGV && !f->general_protection &&
		 f->access != MG_ACCESS_UNKNOWN)
		classify_page_fault(o, out);
	else
		crash(o, out);
}

int mg_outcome_abi(const struct mg_outcome *o, struct mg_verdict *out)
{
	char what[MG_DETAIL_MAX - 32];

	if (!mg_abi_violation(&o->abi, what, sizeof what))
		return 0;
	mg_verdict_set(out, MG_ABI_VIOLATION, "%s", what);
	return 1;
}

/* "dst+17", "src+0" or the raw pointer. */
static void name_pointer(char *out, size_t size, const struct mg_outcome *o, const void *p)
{
	const unsigned char *q = p;
	ptrdiff_t near = (ptrdiff_t)o->c->len + 4096;

	if (q - o->dst >= -near && q - o->dst <= near)
		snprintf(out, size, "dst%+td", q - o->dst);
	else if (mg_op_has_src(o->c->variant->op) && q - o->src >= -near && q - o->src <= near)
		snprintf(out, size, "src%+td", q - o->src);
	else
		snprintf(out, size, "%p", p);
}

int mg_outcome_return(const struct mg_outcome *o, struct mg_verdict *out)
{
	char got[64];

	if (o->c->variant->ret != MG_RET_DST || o->returned == (void *)o->dst)
		return 0;
	name_pointer(got, sizeof got, o, o->returned);
	mg_verdict_set(out, MG_WRONG_RETURN, "returned %s, want dst+0", got);
	return 1;
}

unsigned mg_outcome_warnings(const struct mg_outcome *o)
{
	return mg_abi_dirty_upper(&o->abi) ? MG_WARN_DIRTY_UPPER : 0;
}
