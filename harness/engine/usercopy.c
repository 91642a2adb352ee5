/* One user-copy case. `to` is always the first argument and the
 * destination, `from` the source; the user side is `from` for
 * copy_from_user and `to` for copy_to_user and clear_user, the other side
 * is kernel memory.
 *
 * Without a fault the buffers sit at the guard pages as every case's do.
 * With one at byte k, the user buffer is placed so that byte k starts a
 * page, and from that page to the one holding its last byte is made
 * PROT_NONE for the call. A fault there, at an instruction the exception
 * table lists, is resumed at the entry's fixup in the state the kernel's
 * handler gives (extable.h); at any other instruction it ends the call,
 * as the kernel's oops would. The kernel buffer never faults: a fault
 * near it is a finding. Then the rules of the fault contract, in the
 * order of docs/usercopy.md, each one class. */
#include "usercopy.h"
#include "call.h"
#include "extable.h"
#include "fault.h"
#include "memcheck.h"
#include "outcome.h"
#include "rng.h"
#include "sandbox.h"
#include "table.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

struct ucopy {
	const struct mg_case *c;
	const struct mg_sandbox *sb;
	struct mg_layout at;
	unsigned char *user;		/* at.src or at.dst */
	const unsigned char *win_want;	/* the window's bytes before the call */
	const unsigned char *src_want;	/* the source's (NULL for clear_user) */
	unsigned char *prot;		/* the PROT_NONE pages, or NULL */
	size_t prot_len;
	struct mg_outcome call;
	unsigned long ret;
};

/* What the fault hook needs while a call runs: the user bytes that fault
 * (from byte k to the end), and what became of the faults. */
static struct {
	const unsigned char *lo, *hi;
	unsigned resumed;
	int refused; /* an entry whose type is not emulated */
	char why[160];
} armed;

static int on_user_fault(const siginfo_t *info, void *ucontext)
{
	const unsigned char *a = info->si_addr;
	struct mg_fault f;
	struct mg_extable_entry e;

	if (a < armed.lo || a >= armed.hi)
		return 0;
	memset(&f, 0, sizeof f);
	f.signo = SIGSEGV;
	mg_fault_decode_context(ucontext, &f);
	if (f.general_protection || !mg_extable_find(f.pc, &e))
		return 0; /* the judge names the instruction */
	if (!mg_extable_apply(&e, ucontext, armed.why, sizeof armed.why)) {
		armed.refused = 1;
		return 0;
	}
	armed.resumed++;
	return 1;
}

static unsigned char *page_up(const unsigned char *p)
{
	return (unsigned char *)(((uintptr_t)p + MG_PAGE - 1) & ~(uintptr_t)(MG_PAGE - 1));
}

/* The user buffer with byte k at a page boundary, a page and more from its
 * arena's start (room for the red zones), in the arena at `base`. */
static unsigned char *user_at_fault(unsigned char *base, size_t k)
{
	return page_up(base + MG_PAGE + k) - k;
}

static void place(struct ucopy *u)
{
	const struct mg_case *c = u->c;
	const struct mg_sandbox *sb = u->sb;
	int user_src = mg_user_is_src(c->variant->op);
	unsigned char *src_arena = sb->src_ro[c->src_above];

	u->prot = NULL;
	if (!c->user_fault) {
		mg_sandbox_place_fast(sb, c, &u->at);
		u->user = user_src ? u->at.src : u->at.dst;
		return;
	}
	if (user_src)
		u->at.src = user_at_fault(src_arena, c->fault_at);
	else
		u->at.src = mg_place_buffer(src_arena, src_arena + sb->arena, 0, c->len,
					    c->src_align, c->place);
	u->at.src_rw = sb->src_rw + (u->at.src - src_arena);
	if (user_src)
		u->at.dst = mg_place_buffer(sb->dst, sb->dst + sb->arena, 0, c->len, c->dst_align,
					    c->place);
	else
		u->at.dst = user_at_fault(sb->dst, c->fault_at);
	mg_sandbox_window(sb, u->at.dst, u->at.dst + c->len, &u->at);
	u->user = user_src ? u->at.src : u->at.dst;
	u->prot = u->user + c->fault_at;
	u->prot_len = (size_t)(page_up(u->user + c->len) - u->prot);
}

static void fill(struct ucopy *u)
{
	const struct mg_case *c = u->c;
	const struct mg_sandbox *sb = u->sb;
	uint64_t win_key = mg_mix64(c->seed * 2), src_key = mg_mix64(c->seed * 2 + 1);

	u->src_want = NULL;
	if (c->len == 0)
		return;
	u->win_want = sb->pool + mg_below(win_key, sb->pool_size - u->at.win_len + 1);
	memcpy(u->at.win, u->win_want, u->at.win_len);
	if (mg_op_has_src(c->variant->op)) {
		u->src_want = sb->pool + mg_below(src_key, sb->pool_size - c->len + 1);
		memcpy(u->at.src_rw, u->src_want, c->len);
	}
}

/* The user pages from byte k on, PROT_NONE for the call (0: done). */
static int protect(const struct ucopy *u, int on)
{
	int prot = on ? PROT_NONE
	       : mg_user_is_src(u->c->variant->op) ? PROT_READ
						    : PROT_READ | PROT_WRITE;

	return u->prot ? mprotect(u->prot, u->prot_len, prot) : 0;
}

static void run(struct ucopy *u, int clean_int)
{
	const struct mg_case *c = u->c;

	u->call.c = c;
	memset(&armed, 0, sizeof armed);
	if (u->prot) {
		armed.lo = u->prot;
		armed.hi = u->user + c->len;
	}
	mg_outcome_arm(&u->call, u->at.dst, u->at.src);
	mg_fault_fixup_hook = on_user_fault;
	if (sigsetjmp(mg_fault_jmp, 0))
		mg_outcome_faulted(&u->call);
	else
		mg_outcome_run(&u->call, clean_int);
	mg_fault_fixup_hook = NULL;
	u->ret = (unsigned long)(uintptr_t)u->call.returned;
}

/* ---- the rules for a call that faulted ---- */

static void unhandled_fault(const struct ucopy *u, struct mg_verdict *out)
{
	const struct mg_case *c = u->c;
	const unsigned char *a = u->call.fault.addr;
	int user_src = mg_user_is_src(c->variant->op);

	mg_verdict_start(out, MG_UNHANDLED_FAULT);
	out->has |= MG_HAS_SIGNAL | MG_HAS_PC | MG_HAS_ADDRESS | MG_HAS_ACCESS;
	out->signo = SIGSEGV;
	out->died = 0;
	out->access = u->call.fault.access;
	out->address = (unsigned long long)(uintptr_t)a;
	mg_variant_name_address(u->call.c->variant, u->call.fault.pc, out->pc, sizeof out->pc);
	mg_verdict_locate(out, user_src ? MG_BUFFER_SRC : MG_BUFFER_DST, u->user, c->len, a);
	mg_verdict_say(out,
		       "; the user buffer faulted at pc %s, which the exception table does not "
		       "list: the kernel would oops",
		       out->pc);
}

static void kernel_fault(const struct ucopy *u, struct mg_verdict *out)
{
	const struct mg_case *c = u->c;
	const unsigned char *a = u->call.fault.addr;
	int user_src = mg_user_is_src(c->variant->op);

	mg_verdict_start(out, MG_KERNEL_FAULT);
	out->has |= MG_HAS_PC | MG_HAS_ADDRESS | MG_HAS_ACCESS;
	out->access = u->call.fault.access;
	out->address = (unsigned long long)(uintptr_t)a;
	mg_variant_name_address(u->call.c->variant, u->call.fault.pc, out->pc, sizeof out->pc);
	if (user_src)
		mg_verdict_locate(out, MG_BUFFER_DST, u->at.dst, c->len, a);
	else
		mg_verdict_locate(out, MG_BUFFER_SRC, u->at.src, c->len, a);
	mg_verdict_say(out, "; the kernel buffer faulted at pc %s: it never faults (an oops, or "
			    "with an exception entry a kernel overrun passed off as a short copy)",
		       out->pc);
}

/* The kernel buffer's arena, with its guard pages. */
static int in_kernel_arena(const struct ucopy *u, const void *a)
{
	enum mg_op op = u->c->variant->op;

	if (op == MG_CLEAR_USER)
		return 0;
	return mg_user_is_src(op) ? mg_in_dst_arena(u->sb, a) : mg_in_src_arena(u->sb, a);
}

static void judge_fault(const struct ucopy *u, struct mg_verdict *out)
{
	const struct mg_fault *f = &u->call.fault;
	const unsigned char *a = f->addr;
	int page_fault = f->signo == SIGSEGV && !f->general_protection;

	if (armed.refused) {
		mg_verdict_set(out, MG_ERROR, "%s", armed.why);
		return;
	}
	if (page_fault && u->prot && a >= u->prot && a < u->user + u->c->len)
		unhandled_fault(u, out);
	else if (page_fault && in_kernel_arena(u, a))
		kernel_fault(u, out);
	else
		mg_outcome_fault(&u->call, page_fault && (mg_in_src_arena(u->sb, a) ||
							  mg_in_dst_arena(u->sb, a)),
				 out);
}

/* ---- the rules for a call that returned ---- */

/* How many bytes the routine could copy: up to the fault, or all. */
static size_t copyable(const struct ucopy *u)
{
	return u->c->user_fault ? u->c->fault_at : u->c->len;
}

/* Red zones: nothing written around `to` (out-of-bounds-write). */
static int red_zones(const struct ucopy *u, struct mg_verdict *out)
{
	const unsigned char *to = u->at.dst, *win = u->at.win;
	size_t n = u->c->len;

	for (size_t i = 0; i < u->at.win_len; i++) {
		const unsigned char *p = win + i;
		if (p == to) { /* the bytes of `to` are the other rules' */
			i += n;
			p += n;
		}
		if (i >= u->at.win_len || *p == u->win_want[i])
			continue;
		mg_verdict_start(out, MG_OOB_WRITE);
		out->has |= MG_HAS_ACCESS;
		out->access = MG_ACCESS_WRITE;
		mg_verdict_byte(out, p - to, *p, u->win_want[i]);
		mg_verdict_locate(out, MG_BUFFER_DST, to, n, p);
		mg_verdict_say(out, ": changed 0x%02x -> 0x%02x", u->win_want[i], *p);
		return 1;
	}
	return 0;
}

/* The count: in [0, n], 0 without a fault, and no more copied than could be. */
static int count_rule(const struct ucopy *u, struct mg_verdict *out)
{
	size_t n = u->c->len, k = copyable(u);

	if (u->ret > n) {
		mg_verdict_set(out, MG_WRONG_COUNT, "returned %lu, more than n = %zu", u->ret, n);
		return 1;
	}
	if (!u->c->user_fault && u->ret != 0) {
		mg_verdict_set(out, MG_WRONG_COUNT,
			       "returned %lu with nothing faulting: a copy that succeeds returns 0",
			       u->ret);
		return 1;
	}
	if (n - (size_t)u->ret > k) {
		size_t copied = n - (size_t)u->ret;
		mg_verdict_set(out, MG_WRONG_COUNT,
			       "returned %lu of n = %zu, so %zu byte%s copied, but the user buffer "
			       "faults from byte %zu: at most %zu could be",
			       u->ret, n, copied, copied == 1 ? "" : "s", k, k);
		return 1;
	}
	return 0;
}

/* Nothing past to + n - ret changed (write-past-count). */
static int past_count_rule(const struct ucopy *u, struct mg_verdict *out)
{
	const unsigned char *to = u->at.dst, *want = u->win_want + (to - u->at.win);
	size_t n = u->c->len, copied = n - (size_t)u->ret;

	/* From byte k on, a user destination was PROT_NONE: nothing there. */
	for (size_t i = copied; i < n; i++) {
		if (to[i] == want[i])
			continue;
		mg_verdict_start(out, MG_WRITE_PAST_COUNT);
		mg_verdict_byte(out, (long long)i, to[i], want[i]);
		mg_verdict_say(out,
			       "dst[%zu] changed 0x%02x -> 0x%02x, past the %zu byte%s the count says "
			       "were copied (returned %lu of n = %zu): all data past to + n - ret "
			       "must be left unmodified",
			       i, want[i], to[i], copied, copied == 1 ? "" : "s", u->ret, n);
		return 1;
	}
	return 0;
}

/* The first n - ret bytes at `to` are the reference's (wrong-result). The
 * byte loop runs on the shadow copy of the window, with the source's pool
 * bytes. */
static int prefix_rule(const struct ucopy *u, struct mg_verdict *out)
{
	const struct mg_case *c = u->c;
	size_t copied = c->len - (size_t)u->ret, wrong = 0, first = 0;
	unsigned char *shadow = u->sb->shadow, *want = shadow + (u->at.dst - u->at.win);
	const unsigned char *to = u->at.dst;

	memcpy(shadow, u->win_want, u->at.win_len);
	mg_call_reference(c->variant->op, want, u->src_want, 0, c->len);
	for (size_t i = copied; i-- > 0;)
		if (to[i] != want[i])
			wrong++, first = i;
	if (!wrong)
		return 0;
	mg_verdict_start(out, MG_WRONG_RESULT);
	mg_verdict_byte(out, (long long)first, to[first], want[first]);
	mg_verdict_say(out,
		       "dst[%zu] got 0x%02x want 0x%02x (%zu of the %zu bytes the count says were "
		       "copied are wrong; returned %lu of n = %zu)",
		       first, to[first], want[first], wrong, copied, u->ret, c->len);
	return 1;
}

/* n (nothing copied) only when not even the first byte could be. The
 * clause is raw_copy_{to,from}_user's (uaccess.h); clear_user has none,
 * and the kernel's may give up on a word whose last byte faults (6.1's
 * arm64 __arch_clear_user returns 4 of 4 when byte 3 faults). */
static int gave_up_rule(const struct ucopy *u, struct mg_verdict *out)
{
	size_t n = u->c->len;

	if (n == 0 || u->ret != n || copyable(u) == 0 || u->c->variant->op == MG_CLEAR_USER)
		return 0;
	mg_verdict_set(out, MG_NOTHING_COPIED,
		       "returned n = %zu (nothing copied), but the first %zu byte%s could be: n "
		       "is only for when not even the first byte can be copied",
		       n, copyable(u), copyable(u) == 1 ? "" : "s");
	return 1;
}

/* The rules of a call that returned, in their order (docs/usercopy.md). */
static int (*const rules[])(const struct ucopy *, struct mg_verdict *) = {
	red_zones, count_rule, past_count_rule, prefix_rule, gave_up_rule,
};

static void judge(const struct ucopy *u, struct mg_verdict *out)
{
	out->warnings = 0;
	out->unjudged = 0;
	if (u->call.faulted) {
		judge_fault(u, out);
		return;
	}
	out->warnings = mg_outcome_warnings(&u->call);
	out->unjudged = mg_outcome_unjudged(&u->call);
	if (mg_outcome_abi(&u->call, out))
		return;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if ((u->c->len || rules[i] == count_rule) && rules[i](u, out))
			return;
	mg_verdict_start(out, MG_OK);
}

void mg_usercopy_layout(const struct mg_case *c, struct mg_layout *at, unsigned char **prot,
			size_t *prot_len)
{
	struct ucopy u = {.c = c, .sb = mg_sandbox_get()};

	place(&u);
	fill(&u);
	*at = u.at;
	*prot = u.prot;
	*prot_len = u.prot ? u.prot_len : 0;
}

void mg_usercopy_check(const struct mg_case *c, int clean_int, struct mg_verdict *out)
{
	struct ucopy u;
	int err;

	/* Measured with valgrind 3.19: the machine context of its SIGSEGV
	 * holds the pc of the block's end, not the faulting instruction's,
	 * and a rep string's count one off, so no fault can be resumed as the
	 * kernel would. Not a verdict on the routine. */
	if (c->user_fault && mg_memcheck_running()) {
		mg_verdict_set(out, MG_ERROR,
			       "under valgrind a fault's machine context is not the "
			       "faulting instruction's, which the exception-table emulation needs "
			       "(docs/usercopy.md)");
		return;
	}
	u.c = c;
	u.sb = mg_sandbox_get();
	place(&u);
	fill(&u);
	if (protect(&u, 1) != 0) {
		mg_verdict_set(out, MG_ERROR, "mprotect of the user pages failed");
		return;
	}
	run(&u, clean_int);
	err = protect(&u, 0);
	if (err != 0) {
		mg_verdict_set(out, MG_ERROR,
			       "mprotect could not give the user pages back");
		return;
	}
	judge(&u, out);
}
