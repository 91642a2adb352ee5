#include "outcome.h"
#include "call.h"
#include "cpu.h"
#include "noreturn.h"
#include "situation.h"
#include "table.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int mg_outcome_entry_flags = 1;
enum mg_platform_rule mg_platform_rule = MG_PLATFORM_AUTO;

void mg_outcome_faulted(struct mg_outcome *o)
{
	const struct mg_situation *s = mg_situation_of(o->c);

	mg_fault_take(&o->fault);
	o->faulted = 1;
	if (s)
		s->abandon();
}

/* sigsetjmp needs a frame that is live when the fault arrives: this one. */
void mg_outcome_call(struct mg_outcome *o, unsigned char *dst, unsigned char *src, int clean_int)
{
	mg_outcome_arm(o, dst, src);
	if (sigsetjmp(mg_fault_jmp, 0))
		mg_outcome_faulted(o);
	else
		mg_outcome_run(o, clean_int);
}

/* A SIGTRAP that reaches the judge is one the stepping did not take: its
 * si_code says which, for the next look at a rare one. */
static const char *trap_kind(int code)
{
	switch (code) {
	case TRAP_BRKPT: return " (si_code TRAP_BRKPT: a breakpoint)";
	case TRAP_TRACE:
		return " (si_code TRAP_TRACE: a single-step trap outside the stepped call)";
	case SI_KERNEL: return " (si_code SI_KERNEL: int3, or a trap the kernel raised)";
	default: return " (a trap of another si_code)";
	}
}

static const char *fault_kind(const struct mg_fault *f)
{
	if (f->general_protection)
		return " (general-protection fault, e.g. a misaligned aligned-vector access)";
	if (f->reading)
		return f->reading;
	switch (f->signo) {
	case SIGILL: return " (illegal instruction: a CPU feature missing?)";
	case SIGBUS: return " (bus error)";
	case SIGFPE: return " (arithmetic exception)";
	case SIGTRAP: return trap_kind(f->code);
	default: return "";
	}
}

static void name_pc(const struct mg_outcome *o, char *out, size_t size)
{
	mg_variant_name_address(o->c->variant, o->fault.pc, out, size);
}

static void crash(const struct mg_outcome *o, struct mg_verdict *out)
{
	const struct mg_fault *f = &o->fault;
	const char *called = mg_noreturn_called;

	mg_verdict_start(out, MG_CRASH);
	out->has |= MG_HAS_SIGNAL | MG_HAS_PC | MG_HAS_ADDRESS;
	out->signo = f->signo;
	out->died = 0;
	name_pc(o, out->pc, sizeof out->pc);
	out->address = (unsigned long long)(uintptr_t)f->addr;
	if (called) {
		/* The trap was the stub's: the routine's own act was the call. */
		out->has |= MG_HAS_CALLED;
		snprintf(out->called, sizeof out->called, "%s", called);
		mg_verdict_say(out, "called %s, a failure function that does not return", called);
		return;
	}
	if (f->foreign_tp) {
		char tp[96];

		mg_cpu_describe_thread_pointer(f->foreign_tp, tp, sizeof tp);
		mg_verdict_say(out,
			       "%s at pc %s came while %s: a signal handler runs with the "
			       "thread pointer it finds, so its first thread-local access faults "
			       "(docs/contract.md, I7)",
			       mg_signal_name(out->signo), out->pc, tp);
		return;
	}
	mg_verdict_say(out, "%s%s at pc %s, address %p", mg_signal_name(out->signo), fault_kind(f),
		       out->pc, f->addr);
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
	int blame_src = has_src && distance(o->src, c->len, a) < distance(o->dst, c->len, a);

	if (is_write && has_src && !c->overlap && distance(o->src, c->len, a) == 0) {
		mg_verdict_start(out, MG_SRC_MODIFIED);
		out->has |= MG_HAS_WHERE | MG_HAS_ACCESS | MG_HAS_ADDRESS;
		out->buffer = MG_BUFFER_SRC;
		out->side = MG_SIDE_INSIDE;
		out->distance = 0;
		out->offset = a - o->src;
		out->access = MG_ACCESS_WRITE;
		out->address = (unsigned long long)(uintptr_t)a;
		mg_verdict_say(out,
			       "wrote src+%lld (len %zu); the source is read-only during the call",
			       out->offset, c->len);
		return;
	}
	mg_verdict_start(out, is_write ? MG_OOB_WRITE : MG_OOB_READ);
	out->has |= MG_HAS_ACCESS | MG_HAS_ADDRESS;
	out->access = o->fault.access;
	out->address = (unsigned long long)(uintptr_t)a;
	/* A stray access is blamed on the nearer buffer. */
	if (blame_src)
		mg_verdict_locate(out, MG_BUFFER_SRC, o->src, c->len, a);
	else
		mg_verdict_locate(out, MG_BUFFER_DST, o->dst, c->len, a);
}

void mg_outcome_fault(const struct mg_outcome *o, int owned, struct mg_verdict *out)
{
	const struct mg_fault *f = &o->fault;

	if (f->signo == mg_watchdog_signal())
		mg_verdict_set(out, MG_TIMEOUT, "no return within %u ms of CPU time (watchdog)",
			       mg_situation_timeout_ms(o->c));
	else if (owned && f->signo == SIGSEGV && !f->general_protection &&
		 f->access != MG_ACCESS_UNKNOWN)
		classify_page_fault(o, out);
	else
		crash(o, out);
}

int mg_outcome_abi(const struct mg_outcome *o, struct mg_verdict *out)
{
	return mg_abi_violation(&o->abi, mg_outcome_resumed(o), out);
}

/* "dst+17", "src+0" or the raw pointer; with tagged pointers, a top byte
 * other than dst's is named. */
static void name_pointer(char *out, size_t size, const struct mg_outcome *o, const void *p)
{
	const unsigned char *q = p;
	ptrdiff_t near = (ptrdiff_t)o->c->len + 4096;

#if UINTPTR_MAX > 0xffffffffu
	unsigned top = (unsigned)((uintptr_t)p >> 56);

	if (o->c->tag && (top == o->c->tag || top == 0)) {
		q = (const unsigned char *)((uintptr_t)p & (((uintptr_t)1 << 56) - 1));
		if (top != o->c->tag && q - o->dst >= -near && q - o->dst <= near) {
			snprintf(out, size, "dst%+td without dst's tag 0x%02x", q - o->dst,
				 o->c->tag);
			return;
		}
	}
#endif
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
	size_t want = o->c->variant->ret == MG_RET_DST_END ? o->c->len : 0;

	if (mg_outcome_returned_right(o))
		return 0;
	name_pointer(got, sizeof got, o, o->returned);
	mg_verdict_set(out, MG_WRONG_RETURN, "returned %s, want dst+%zu", got, want);
	return 1;
}

unsigned mg_outcome_warnings(const struct mg_outcome *o)
{
	return mg_abi_dirty_upper(&o->abi) ? MG_WARN_DIRTY_UPPER : 0;
}

unsigned mg_outcome_unjudged(const struct mg_outcome *o)
{
	return mg_abi_unjudged(&o->abi, mg_outcome_resumed(o)) |
	       (o->c->interrupt && o->c->fpenv_unkept ? MG_UNJUDGED_X87_STEPPED : 0);
}

void mg_judge(const struct mg_outcome *o, int owned, const struct mg_judge_checks *k,
	      struct mg_verdict *out)
{
	const struct mg_situation *s = mg_situation_of(o->c);

	out->warnings = 0;

	out->unjudged = 0;
	if (o->faulted) {
		mg_outcome_fault(o, owned, out);
		return;
	}
	out->warnings = mg_outcome_warnings(o);
	out->unjudged = mg_outcome_unjudged(o);
	if ((k->source && k->source(k->ctx, out)) || mg_outcome_abi(o, out) ||
	    mg_situation_broken(s, MG_JUDGED_AFTER_ABI, o, out) || k->red_zones(k->ctx, out) ||
	    k->bytes(k->ctx, out) || (k->memory && k->memory(k->ctx, out)) ||
	    mg_outcome_return(o, out) || mg_situation_broken(s, MG_JUDGED_LAST, o, out))
		return;
	mg_verdict_start(out, MG_OK);
}
