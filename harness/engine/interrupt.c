#include "interrupt.h"
#include "call.h"
#include "fault.h"
#include "memcheck_mode.h"
#include "outcome.h"
#include "step.h"
#include "table.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How deep below what the routine owns each stop overwrites and watches:
 * deeper than any routine's stray scratch, shallower than a signal frame. */
#define BELOW_DEPTH 2048u
/* A stepped call is many times slower than a plain one (a trap costs
 * microseconds, and a loaded machine makes that tens): the watchdog gives
 * it this many times the plain limit, and this much more, so that a short
 * --timeout-ms (the tests' 200) still leaves a page's 20,000 stops time. */
#define STEPPED_SLOWDOWN   20u
#define STEPPED_EXTRA_MS 30000u
/* One stop in this many calls the routine from the handler. */
#define NEST_EVERY 53u
/* The handler's own calls get a page for each buffer (the page operations
 * take one), page aligned; a drawn call leaves a cache line either side. */
#define NEST_BYTES 4096u
#define NEST_MARGIN 64u

enum phase { IDLE, ENTERING, INSIDE };

/* The call a handler makes into the routine it interrupted (draw_nested). */
struct nested_call {
	size_t len;
	unsigned src_align, dst_align; /* mod 64 */
	int overlap;		       /* memmove: dst = src + dist in one buffer */
	long dist;
	int value;
	uint64_t seed; /* its bytes */
};

enum broken { NOTHING, BELOW_STACK, NEIGHBOUR, NESTED };

/* What a stop found first. */
struct finding {
	enum broken what;
	uintptr_t pc;	     /* the instruction that did it: the one before the stop */
	long long offset;    /* BELOW_STACK: from the stack pointer then; NESTED: from
			      * the handler's dst; else from dst */
	unsigned got, want;  /* the byte found, and what it should have held */
	struct nested_call nested; /* NESTED: the handler's call */
};

/* One side of dst that the handler changes: at stop k it holds the bytes it
 * held before the call (pool) xor generation(k). */
struct side {
	unsigned char *at;
	size_t len;
	unsigned char pool[MG_REDZONE];
};

/* The handler's state: set before the call, read by the judge. */
static struct {
	volatile enum phase phase;
	const struct mg_case *c;
	unsigned char *dst;
	uintptr_t entry;
	size_t red;
	unsigned char *below; /* what the last stop overwrote below the stack */
	size_t below_len;
	unsigned char poison;
	uintptr_t last_pc, last_sp;
	struct side sides[2]; /* before and past dst; separate buffers only */
	unsigned long stops;
	struct finding found;
	sigset_t held;    /* the mask before the call, while `holding` */
	int holding;
} st;

/* Whether the handler calls the routine itself (1, but for the blame that
 * tells a routine that is not reentrant from one that breaks otherwise). */
static int nested = 1;

static _Alignas(4096) unsigned char nest_src[NEST_BYTES], nest_dst[NEST_BYTES],
	nest_want[NEST_BYTES];

static unsigned stepped_timeout_ms(const struct mg_case *c)
{
	return mg_timeout_for(c->len) * STEPPED_SLOWDOWN + STEPPED_EXTRA_MS;
}

static bool stepping_possible(char *why, size_t size)
{
	if (!mg_step_possible(why, size))
		return false;
	if (mg_memcheck_running()) {
		snprintf(why, size, "valgrind does not deliver single-step traps");
		return false;
	}
	return true;
}

/* In the sandbox, where the ISA can step, in a floating-point environment
 * a signal gives back. */
static bool interrupt_valid(const struct mg_case *c, char *why, size_t size)
{
	char cannot[160];

	/* A stop per instruction: a byte loop over 16 KiB already takes some
	 * 80,000, a fuzzer's per-input time limit and more. */
	if (c->len > MG_SPOT_MAX_LEN || c->oracle || mg_spot_is_remote(c->spot)) {
		snprintf(why, size,
			 "--interrupt=step is for lengths up to %zu at the guard pages and the "
			 "straddles",
			 MG_SPOT_MAX_LEN);
		return false;
	}
	if (!stepping_possible(cannot, sizeof cannot)) {
		snprintf(why, size, "--interrupt=step cannot run here: %s", cannot);
		return false;
	}
	if (!mg_abi_fpenv_steppable(c->fpenv)) {
		snprintf(why, size,
			 "--fpenv=%s with --interrupt: a signal here does not give a thread its "
			 "x87 state back (qemu-i386 7.2's sigreturn drops it), so the call could "
			 "not keep it",
			 mg_abi_fpenv_name(c->fpenv));
		return false;
	}
	return true;
}

static void note(enum broken what, long long offset, unsigned got, unsigned want)
{
	if (st.found.what == NOTHING)
		st.found = (struct finding){what, st.last_pc, offset, got, want, {0}};
}

/* ---- what a stop checks ----------------------------------------------------- */

/* A byte below what the routine owned at the last stop that no longer holds
 * the poison: the routine wrote it since. Only what is still below what it
 * owns now counts (a push, or a sub of the stack pointer, gives it more). */
static void check_below(uintptr_t sp)
{
	uintptr_t owned = sp - st.red, lo = (uintptr_t)st.below;
	size_t n = st.below_len;

	if (lo + n > owned)
		n = owned > lo ? owned - lo : 0;
	for (size_t i = 0; i < n; i++)
		if (st.below[i] != st.poison) {
			note(BELOW_STACK, (long long)(intptr_t)(lo + i - st.last_sp), st.below[i],
			     st.poison);
			return;
		}
}

/* The generation the bytes next to dst carry after stop k: 1 to 255, 0
 * before the first (the pool's bytes). */
static unsigned generation(unsigned long k)
{
	return k ? (unsigned)(k % 255) + 1 : 0;
}

/* A byte next to dst that is not what the last stop left there. */
static void check_side(const struct side *s)
{
	unsigned now = generation(st.stops);

	for (size_t i = 0; i < s->len; i++) {
		unsigned char b = s->at[i], want = (unsigned char)(s->pool[i] ^ now);
		if (b == want)
			continue;
		note(NEIGHBOUR, (long long)(s->at + i - st.dst), b, want);
		return;
	}
}

/* ---- what a stop does ------------------------------------------------------- */

/* What a signal or interrupt frame would do to the stack below what the
 * routine owns; a new byte each stop, so that a write of an old one shows. */
static void overwrite_below(uintptr_t sp)
{
	st.poison = (unsigned char)(0xa5 ^ (st.stops * 0x3b));
	st.below = (unsigned char *)(sp - st.red - BELOW_DEPTH);
	st.below_len = BELOW_DEPTH;
	memset(st.below, st.poison, st.below_len);
}

/* What another thread may do to the bytes next to the buffer. */
static void change_side(const struct side *s)
{
	unsigned char g = (unsigned char)generation(st.stops);

	for (size_t i = 0; i < s->len; i++)
		s->at[i] = (unsigned char)(s->pool[i] ^ g);
}

/* The handler's call at the stop'th stop (docs/contract.md, C15): a case
 * of its own, drawn from the case's seed and the stop's number as the
 * threads' workers draw theirs (thread.c): a length that fits the
 * handler's buffers (a third up to 16 bytes, a third up to 256, where
 * routines split into paths, the rest up to a page less its margins), the
 * alignments the contract allows, memmove's overlap either way, memset's
 * value, the bytes. A page routine's call takes its page. Pure
 * arithmetic: it runs in the signal handler. */
static struct nested_call draw_nested(const struct mg_case *c, unsigned long stop)
{
	const struct mg_contract *k = &c->variant->contract;
	struct mg_rng r = {mg_mix64(c->seed ^ mg_mix64(0x6e657374ull << 32 | stop))};
	struct nested_call n = {0};
	size_t most = NEST_BYTES - 2 * NEST_MARGIN;

	n.seed = mg_rng_next(&r);
	n.value = (int)mg_rng_next(&r);
	if (k->fixed_len) {
		n.len = k->fixed_len;
		return n;
	}
	n.overlap = c->variant->op == MG_MEMMOVE && mg_rng_below(&r, 2);
	if (n.overlap)
		most = most / 2 - 8; /* len + |dist| fit */
	n.len = mg_draw_len(&r, most);
	n.len -= n.len % (k->len_multiple ? k->len_multiple : 1);
	n.src_align = mg_draw_align(&r, k->src_align);
	n.dst_align = mg_draw_align(&r, k->dst_align);
	if (n.overlap)
		n.overlap = mg_draw_overlap(&r, n.len, n.src_align, k->dst_align, &n.dist, &n.dst_align);
	return n;
}

/* "memmove len 37, src%64 3, dst = src - 4": the handler's call, for the
 * verdict. */
static void describe_nested(const struct mg_case *c, const struct nested_call *n, char *out,
			    size_t size)
{
	int used = snprintf(out, size, "%s len %zu", mg_op_name(c->variant->op), n->len);

	if (used < 0 || (size_t)used >= size)
		return;
	if (n->overlap)
		snprintf(out + used, size - (size_t)used, ", src%%64 %u, dst = src %c %ld", n->src_align,
			 n->dist < 0 ? '-' : '+', n->dist < 0 ? -n->dist : n->dist);
	else if (mg_op_has_src(c->variant->op))
		snprintf(out + used, size - (size_t)used, ", src%%64 %u, dst%%64 %u", n->src_align,
			 n->dst_align);
	else
		snprintf(out + used, size - (size_t)used, ", dst%%64 %u, c 0x%02x", n->dst_align,
			 (unsigned)n->value & 0xffu);
}

/* The routine called from the handler, as a signal handler may call it, on
 * the handler's own buffers (nest_dst holds memmove's overlapping pair);
 * the whole of nest_dst against the reference's, so that a write next to
 * the call's dst is seen too. */
static void call_nested(void)
{
	const struct mg_variant *v = st.c->variant;
	struct nested_call n = draw_nested(st.c, st.stops);
	struct mg_rng r = {n.seed};
	unsigned char *src, *dst;

	for (size_t i = 0; i < NEST_BYTES; i += 8) {
		uint64_t x = mg_rng_next(&r), y = mg_rng_next(&r);
		memcpy(nest_src + i, &x, 8);
		memcpy(nest_dst + i, &y, 8);
	}
	memcpy(nest_want, nest_dst, NEST_BYTES);
	if (v->contract.fixed_len) {
		src = nest_src;
		dst = nest_dst;
	} else if (n.overlap) {
		src = nest_dst + NEST_MARGIN + (n.dist < 0 ? (size_t)-n.dist : 0) + n.src_align;
		dst = src + n.dist;
	} else {
		src = nest_src + NEST_MARGIN + n.src_align;
		dst = nest_dst + NEST_MARGIN + n.dst_align;
	}
	mg_call_reference(v->op, nest_want + (dst - nest_dst),
			  n.overlap ? nest_want + (src - nest_dst) : src, n.value, n.len);
	mg_call_direct(v, dst, src, n.value, n.len);
	for (size_t i = 0; i < NEST_BYTES && st.found.what == NOTHING; i++)
		if (nest_dst[i] != nest_want[i]) {
			note(NESTED, (long long)(nest_dst + i - dst), nest_dst[i], nest_want[i]);
			st.found.nested = n; /* the first finding's call, as note keeps it */
		}
}

/* Every stop inside the routine: check what it did, then do what a handler
 * may. */
static void stop_inside(uintptr_t pc, uintptr_t sp)
{
	check_below(sp);
	for (int i = 0; i < 2; i++)
		check_side(&st.sides[i]);
	st.stops++;
	st.last_pc = pc;
	st.last_sp = sp;
	if (pc == (uintptr_t)mg_abi_call_returned)
		return;
	overwrite_below(sp);
	for (int i = 0; i < 2; i++)
		change_side(&st.sides[i]);
	if (nested && st.stops % NEST_EVERY == 0)
		call_nested();
}

/* From the fault handler, for each single-step trap (step.h). */
static int on_step(void *ucontext)
{
	uintptr_t pc, sp;

	if (st.phase == IDLE)
		return 0;
	mg_step_where(ucontext, &pc, &sp);
	if (st.phase == ENTERING) {
		if (pc != st.entry)
			return 1; /* still in the trampoline */
		st.phase = INSIDE;
		st.last_pc = pc;
		st.last_sp = sp;
		overwrite_below(sp);
		return 1;
	}
	stop_inside(pc, sp);
	if (pc == (uintptr_t)mg_abi_call_returned) {
		mg_step_stop(ucontext);
		st.phase = IDLE;
	}
	return 1;
}

/* ---- the call --------------------------------------------------------------- */

static void arm_side(struct side *s, unsigned char *at, size_t len)
{
	s->at = at;
	s->len = len;
	memcpy(s->pool, at, s->len);
}

/* The red zones of a separate destination, up to MG_REDZONE bytes a side
 * (less where the window ends at a guard page). */
static void arm_sides(const struct mg_outcome *o, const struct mg_layout *at)
{
	const struct mg_case *c = o->c;
	unsigned char *end = o->dst + c->len, *win_end = at->win + at->win_len;
	size_t before = (size_t)(o->dst - at->win), after = (size_t)(win_end - end);

	if (!c->len || c->overlap)
		before = after = 0;
	before = before < MG_REDZONE ? before : MG_REDZONE;
	after = after < MG_REDZONE ? after : MG_REDZONE;
	arm_side(&st.sides[0], o->dst - before, before);
	arm_side(&st.sides[1], end, after);
}

static void arm(const struct mg_outcome *o, const struct mg_layout *at)
{
	const struct mg_case *c = o->c;

	memset(&st.found, 0, sizeof st.found);
	st.c = c;
	st.dst = o->dst;
	st.entry = (uintptr_t)c->variant->entry.copy;
	st.red = mg_step_red_zone(c->variant->contract.kernel != 0);
	st.stops = 0;
	st.below_len = 0;
	arm_sides(o, at);
	/* Another handler (libFuzzer's SIGALRM each second, a stop signal's)
	 * would write its frame where the stops' poison lies, and the routine
	 * would be blamed for it: until the call ends only the harness's
	 * handler runs. */
	mg_fault_hold_others(&st.held);
	st.holding = 1;
	st.phase = ENTERING;
	mg_fault_step_hook = on_step;
}

/* The window as it was before the call, so that the judge's own red-zone
 * check sees what the routine did, not what the handler did. */
static void disarm(void)
{
	st.phase = IDLE;
	mg_fault_step_hook = NULL;
	if (st.holding)
		pthread_sigmask(SIG_SETMASK, &st.held, NULL);
	st.holding = 0;
	for (int i = 0; i < 2; i++)
		if (st.sides[i].len && st.found.what != NEIGHBOUR)
			memcpy(st.sides[i].at, st.sides[i].pool, st.sides[i].len);
}

/* For tests/run.d/interrupts.sh only: MEMGATE_TEST_NO_TRAPS=1 calls
 * without the trap flag, as a machine that never delivers the traps would;
 * the case must then be could-not-judge, never a pass. */
static int traps_withheld(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("MEMGATE_TEST_NO_TRAPS") != NULL;
	return on;
}

static void run_stepped(struct mg_outcome *o, const struct mg_layout *at, int clean_int)
{
	const struct mg_case *c = o->c;
	const struct mg_variant *v = c->variant;

	arm(o, at);
	if (v->convention)
		mg_call_convention(v, (uintptr_t)o->dst, mg_call_arg1(v, o->src, c->value, clean_int),
				   c->len, &o->abi);
	mg_call_begin(stepped_timeout_ms(c));
	o->returned = (void *)(traps_withheld() ? mg_abi_call : mg_abi_call_stepped)(
		(const void *)(uintptr_t)v->entry.copy, (uintptr_t)o->dst,
		mg_call_arg1(v, o->src, c->value, clean_int), c->len, &o->abi);
	mg_call_end();
	disarm();
}

static void abandon_stepping(void)
{
	disarm();
}

/* ---- the judge's rule ------------------------------------------------------- */

static void name_pc(const struct mg_outcome *o, char *out, size_t size)
{
	mg_variant_name_address(o->c->variant, (const void *)st.found.pc, out, size);
}

static int what_stops_saw(const struct mg_outcome *o, struct mg_verdict *out)
{
	const struct finding *f = &st.found;
	char pc[MG_PC_MAX];

	if (f->what == NOTHING && st.stops == 0) {
		mg_verdict_set(out, MG_ERROR,
			       "no single-step trap stopped the routine: the interrupt situation "
			       "was not made here");
		return 1;
	}
	if (f->what == NOTHING)
		return 0;
	name_pc(o, pc, sizeof pc);
	switch (f->what) {
	case BELOW_STACK:
		mg_verdict_abi(out, "below-stack", 0, 1, f->want, f->got,
			       "wrote sp%+lld at pc %s, %s, where the next signal or interrupt "
			       "frame goes",
			       f->offset, pc,
			       st.red ? "below the 128-byte red zone" : "below the stack pointer");
		break;
	case NEIGHBOUR:
		mg_verdict_start(out, MG_OOB_WRITE);
		out->has |= MG_HAS_ACCESS | MG_HAS_PC;
		out->access = MG_ACCESS_WRITE;
		snprintf(out->pc, sizeof out->pc, "%s", pc);
		mg_verdict_byte(out, f->offset, f->got, f->want);
		mg_verdict_locate(out, MG_BUFFER_DST, o->dst, o->c->len, o->dst + f->offset);
		mg_verdict_say(out,
			       " at pc %s: wrote 0x%02x over 0x%02x, stored there during the "
			       "call as another thread may: a write outside the buffer, even of "
			       "old values, loses such stores",
			       pc, f->got, f->want);
		break;
	default: {
		char call[96];
		int inside = f->offset >= 0 && (size_t)f->offset < f->nested.len;

		describe_nested(o->c, &f->nested, call, sizeof call);
		mg_verdict_start(out, MG_WRONG_RESULT);
		mg_verdict_say(out,
			       "a call from a signal handler (%s), made while the routine was "
			       "stopped at pc %s, ",
			       call, pc);
		if (inside)
			mg_verdict_say(out, "got dst[%lld] 0x%02x, want 0x%02x", f->offset, f->got,
				       f->want);
		else
			mg_verdict_say(out, "wrote dst%+lld 0x%02x, want 0x%02x", f->offset, f->got,
				       f->want);
		break; /* blame_interrupt says why: reentrancy, or that call alone */
	}
	}
	return 1;
}

/* Whether the handler's call, made alone as a case of its own, fails too. */
static bool nested_fails_alone(const struct mg_case *c, const struct nested_call *n, mg_check_fn check)
{
	struct mg_case alone = *c;
	struct mg_verdict again;

	alone.interrupt = false;
	alone.len = n->len;
	alone.src_align = n->src_align;
	alone.dst_align = n->dst_align;
	alone.overlap = n->overlap;
	alone.dist = n->dist;
	alone.value = n->value; /* a case as draw_nested made it: valid for the variant */
	check(&alone, 0, &again);
	return again.cls != MG_OK;
}

/* A case that fails only when its routine is interrupted: say so, so that
 * nobody looks for the bug in the uninterrupted call; and when it passes
 * while the handler does not call the routine, that it is not reentrant.
 * When the handler's own call failed and fails alone too, it is a plain
 * bug that call met first, and is said so. */
static void blame_interrupt(const struct mg_case *c, mg_check_fn check, struct mg_verdict *out)
{
	struct finding found = st.found;
	struct mg_case plain = *c;
	struct mg_verdict again;

	if (found.what == NESTED && nested_fails_alone(c, &found.nested, check)) {
		mg_verdict_say(out, "; that call fails alone too, uninterrupted");
		return;
	}
	plain.interrupt = false;
	check(&plain, 0, &again);
	if (again.cls != MG_OK)
		return;
	nested = 0;
	check(c, 0, &again);
	nested = 1;
	if (again.cls == MG_OK)
		mg_verdict_say(out, "; it passes uninterrupted, and interrupted by a handler "
				    "that does not call it: it is not reentrant (POSIX makes it "
				    "async-signal-safe)");
	else
		mg_verdict_say(out, "; uninterrupted, the same case passes");
}

static bool asks_for_interrupt(const struct mg_case *c)
{
	return c->interrupt;
}

const struct mg_situation mg_situation_interrupt = {
	.option = "--interrupt=step",
	.wanted = asks_for_interrupt,
	.possible = stepping_possible,
	.valid = interrupt_valid,
	.timeout_ms = stepped_timeout_ms,
	.run = run_stepped,
	.abandon = abandon_stepping,
	.broken = what_stops_saw,
	.judged_at = MG_JUDGED_AFTER_ABI,
	.repeatable = true,
	.blame = blame_interrupt,
};
