/* The threads situation (thread.h). Each worker slot keeps a mapping of its
 * own for the process's life: a guard page, the source region, a guard
 * page, the destination region, a guard page. */
#include "thread.h"
#include "abi.h"
#include "call.h"
#include "cpu.h"
#include "fault.h"
#include "outcome.h"
#include "rng.h"
#include "sandbox.h"
#include "table.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Each region holds a case of MG_SPOT_MAX_LEN bytes (memmove's: its length
 * plus distance) with its red zones. */
#define REGION	  MG_THREADS_REGION
#define ALT_STACK ((size_t)64 << 10)
#define WORKERS	  (MG_THREADS_MAX - 1)
#define START_MS  5000u /* for the workers to reach the start line */
#define STOP_MS	  1000u /* for a stopped worker to end */

enum what { NOTHING, WRONG_BYTE, WRONG_RETURN, FAULTED };

struct worker {
	pthread_t tid;
	unsigned index; /* 1 to threads - 1; the caller is thread 0 */
	unsigned char *map, *src_region, *dst_region, *want, *alt_stack;
	unsigned char *src, *dst, *lo, *hi; /* this case's buffers and window */
	unsigned round;
	struct mg_case call; /* this round's call (draw_call) */
	_Atomic int done;
	_Atomic unsigned call_began; /* while in a call: 1 + its start in ms from
				      * the case's (st.began), else 0 */
	_Atomic unsigned call_cpu_began; /* 1 + the thread's CPU ms then, or 0 */
	clockid_t clock;	       /* its CPU clock; */
	int has_clock;		       /* 0: the wall clock decides */
	/* the first thing it saw wrong */
	enum what what;
	long long offset;
	unsigned got, want_byte;
	void *returned;
	struct mg_fault fault;
};

static struct {
	const struct mg_case *c;
	unsigned workers; /* running: threads - 1, or fewer if one failed to start */
	_Atomic unsigned ready, calling;
	_Atomic int go, caller_done;
	int in_flight;
	double began; /* now_ms() when the case started */
	char error[200];
	unsigned failed; /* 1 + the worker whose call is the verdict's, or 0 */
	struct worker w[WORKERS];
} st;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The first thing that kept the situation from being made; `thread`
 * counts from 1, the caller's. */
static void error(const char *what, unsigned thread)
{
	if (!st.error[0])
		snprintf(st.error, sizeof st.error, "%s (thread %u of %u)", what, thread,
			 st.c->threads);
}

/* ---- a worker's sandbox ------------------------------------------------ */

static int map_worker(struct worker *w)
{
	size_t size = 3 * MG_PAGE + 2 * REGION;

	if (w->map)
		return 1;
	w->map = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		return 0;
	}
	w->src_region = w->map + MG_PAGE;
	w->dst_region = w->src_region + REGION + MG_PAGE;
	w->want = malloc(REGION);
	w->alt_stack = malloc(ALT_STACK);
	if (!w->want || !w->alt_stack ||
	    mprotect(w->src_region, REGION, PROT_READ | PROT_WRITE) != 0 ||
	    mprotect(w->dst_region, REGION, PROT_READ | PROT_WRITE) != 0)
		return 0;
	return 1;
}

/* The case's buffers in the worker's regions, against the guard page its
 * placement names; memmove's overlapping pair in the destination region. */
static void place(struct worker *w, const struct mg_case *c)
{
	unsigned char *src_end = w->src_region + REGION, *dst_end = w->dst_region + REGION;
	size_t up = c->overlap && c->dist > 0 ? (size_t)c->dist : 0;
	size_t down = c->overlap && c->dist < 0 ? (size_t)-c->dist : 0;

	if (c->overlap) {
		w->src = mg_place_buffer(w->dst_region, dst_end - up, down, c->len, c->src_align,
					 c->place);
		w->dst = w->src + c->dist;
	} else {
		w->src = mg_place_buffer(w->src_region, src_end, 0, c->len, c->src_align, c->place);
		w->dst = mg_place_buffer(w->dst_region, dst_end, 0, c->len, c->dst_align, c->place);
	}
	w->lo = c->overlap && c->dist < 0 ? w->dst : c->overlap ? w->src : w->dst;
	w->hi = w->lo + c->len + up + down;
	w->lo = w->lo - w->dst_region > (ptrdiff_t)MG_REDZONE ? w->lo - MG_REDZONE : w->dst_region;
	w->hi = dst_end - w->hi > (ptrdiff_t)MG_REDZONE ? w->hi + MG_REDZONE : dst_end;
}

static void fill(unsigned char *p, size_t n, struct mg_rng *r)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = mg_rng_next(r);
		memcpy(p + i, &x, n - i < 8 ? n - i : 8);
	}
}

/* ---- a worker's calls -------------------------------------------------- */

/* Worker k's call in round `round` (docs/contract.md, C14): a case of its
 * own, from what the contract allows as the sweep's cases are (a length up
 * to MG_SPOT_MAX_LEN, the alignments, memmove's overlap and direction, the
 * guard page it is pushed against, memset's value, its bytes), so that a
 * path only some calls take runs beside the others' paths. One round in
 * four repeats the caller's case with bytes of its own, so that every
 * thread is in the caller's path at once too. A page routine's and a user
 * copy's calls keep the caller's shape. Drawn from the case's seed, the
 * worker and the round: the case's replay line makes the same calls.
 * (mg_case_valid would hold: the engine's situations call nothing of
 * case.c, which calls into them.) */
static void draw_call(const struct mg_case *c, unsigned index, unsigned round, struct mg_case *out)
{
	struct mg_rng r = {mg_mix64(c->seed ^ mg_mix64((uint64_t)index << 32 | round))};
	const struct mg_contract *k = &c->variant->contract;
	struct mg_case d = *c;

	d.threads = 0;
	d.seed = mg_rng_next(&r);
	d.value = (int)((unsigned)c->value + 0x25u * index);
	*out = d;
	if (k->fixed_len || mg_op_is_user(c->variant->op) || mg_rng_below(&r, 4) == 0)
		return;
	d.len = mg_draw_len(&r, MG_SPOT_MAX_LEN);
	d.len -= d.len % (k->len_multiple ? k->len_multiple : 1);
	d.src_align = mg_draw_align(&r, k->src_align);
	d.dst_align = mg_draw_align(&r, k->dst_align);
	d.place = mg_rng_below(&r, 2) ? MG_PLACE_BEFORE : MG_PLACE_AFTER;
	d.value = (int)mg_rng_next(&r);
	d.dist = 0;
	d.overlap = c->variant->op == MG_MEMMOVE && mg_rng_below(&r, 2) &&
		    mg_draw_overlap(&r, d.len, d.src_align, k->dst_align, &d.dist, &d.dst_align);
	*out = d; /* valid by construction: the contract's alignments and multiple */
}

/* ---- a worker ---------------------------------------------------------- */

static void judge_round(struct worker *w, const struct mg_case *c, void *returned)
{
	size_t n = (size_t)(w->hi - w->lo);
	const unsigned char *want = w->want + (w->lo - w->dst_region);
	size_t ret_off = c->variant->ret == MG_RET_DST_END ? c->len : 0;

	for (size_t i = 0; i < n; i++)
		if (w->lo[i] != want[i]) {
			w->what = WRONG_BYTE;
			w->offset = (w->lo + i) - w->dst;
			w->got = w->lo[i];
			w->want_byte = want[i];
			return;
		}
	if (c->variant->ret != MG_RET_VOID && returned != mg_tagged(w->dst + ret_off, c->tag)) {
		w->what = WRONG_RETURN;
		w->returned = returned;
	}
}

static void one_round(struct worker *w, const struct mg_case *outer)
{
	const struct mg_case *c = &w->call;
	struct mg_rng r;
	unsigned char *want_dst;
	const unsigned char *want_src;
	void *returned;

	draw_call(outer, w->index, w->round, &w->call);
	place(w, c);
	r.state = mg_mix64(c->seed);
	want_dst = w->want + (w->dst - w->dst_region);
	want_src = c->overlap ? w->want + (w->src - w->dst_region) : w->src;

	fill(w->lo, (size_t)(w->hi - w->lo), &r);
	if (!c->overlap && mg_op_has_src(c->variant->op))
		fill(w->src, c->len, &r);
	memcpy(w->want + (w->lo - w->dst_region), w->lo, (size_t)(w->hi - w->lo));
	mg_call_reference(c->variant->op, want_dst, want_src, c->value, c->len);
	if (mg_case_sets_vl(c) && mg_cpu_use_vl(c->vl) != 0)
		error("a thread could not set the case's vector length", w->index + 1);
	double cpu = mg_cpu_clock_ms(CLOCK_THREAD_CPUTIME_ID);
	atomic_store(&w->call_cpu_began, cpu < 0 ? 0u : (unsigned)cpu + 1);
	atomic_store(&w->call_began, (unsigned)(now_ms() - st.began) + 1);
	/* The case's tags too (case.h): a caller may tag its pointers in
	 * every thread. */
	returned = mg_call_direct(c->variant, mg_tagged(w->dst, c->tag), mg_tagged(w->src, mg_src_tag(c)),
				  c->value, c->len);
	atomic_store(&w->call_began, 0);
	judge_round(w, c, returned);
}

/* Waiting on another thread: spins a while, then gives the CPU away now
 * and then (on a loaded machine a yield may cost a whole time slice, so
 * not at every turn). */
static void relax(unsigned *spins)
{
	if (++*spins % 256 == 0)
		sched_yield();
}

static void wait_for_go(void)
{
	for (unsigned spins = 0; !atomic_load_explicit(&st.go, memory_order_acquire);)
		relax(&spins);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct mg_fault_catch catch_;
	stack_t ss = {.ss_sp = w->alt_stack, .ss_size = ALT_STACK};

	sigaltstack(&ss, NULL);
	mg_fault_unblock();
	if (sigsetjmp(catch_.jmp, 0)) {
		w->what = FAULTED;
		w->fault = catch_.fault;
	} else {
		mg_fault_catch = &catch_;
		atomic_fetch_add(&st.ready, 1);
		wait_for_go();
		atomic_fetch_add(&st.calling, 1);
		while ((w->round < MG_THREADS_ROUNDS || !atomic_load(&st.caller_done)) &&
		       w->what == NOTHING) {
			one_round(w, st.c);
			w->round++;
		}
		mg_fault_catch = NULL;
	}
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	atomic_store(&w->done, 1);
	return NULL;
}

/* ---- the caller -------------------------------------------------------- */

/* For tests/run.d/threads.sh only: MEMGATE_TEST_NO_THREADS=1 fails every
 * thread start, as a process at its thread limit would; the case must
 * then be could-not-judge, never a pass. */
static int threads_withheld(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("MEMGATE_TEST_NO_THREADS") != NULL;
	return on;
}

static int start_worker(struct worker *w, unsigned index)
{
	sigset_t all, old;
	int rc;

	memset(&w->what, 0, sizeof *w - offsetof(struct worker, what));
	w->index = index;
	w->round = 0;
	atomic_store(&w->done, 0);
	atomic_store(&w->call_began, 0);
	if (!map_worker(w)) {
		error("cannot map a worker's buffers", index + 1);
		return 0;
	}
	/* Only the faults and the watchdog's signal go to a worker; a stop
	 * signal (stop.h) stays with the threads that handle it. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = threads_withheld() ? -1 : pthread_create(&w->tid, NULL, work, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		error("cannot start a thread", index + 1);
	else
		w->has_clock = pthread_getcpuclockid(w->tid, &w->clock) == 0;
	return rc == 0;
}

static void start(const struct mg_case *c)
{
	unsigned spins = 0;
	double t0;

	st.c = c;
	st.began = now_ms();
	st.error[0] = '\0';
	st.failed = 0;
	st.workers = 0;
	atomic_store(&st.ready, 0);
	atomic_store(&st.calling, 0);
	atomic_store(&st.go, 0);
	atomic_store(&st.caller_done, 0);
	st.in_flight = 1;
	while (st.workers < c->threads - 1 && start_worker(&st.w[st.workers], st.workers + 1))
		st.workers++;
	for (t0 = now_ms(); atomic_load(&st.ready) < st.workers; relax(&spins))
		if (now_ms() - t0 > START_MS) {
			error("a thread did not reach the start line within 5 s", c->threads);
			break;
		}
	mg_abi_threads_changed();
}

/* Whether the worker's call has overrun `ms` (mg_call_overran): the
 * watchdog's rule for one call. Its other rounds, however long a loaded
 * machine makes them, are not a hang. */
static int call_overdue(struct worker *w, unsigned ms)
{
	unsigned began = atomic_load(&w->call_began), cpu_began;
	double wall, cpu;

	if (!began)
		return 0;
	wall = now_ms() - st.began - (began - 1);
	cpu_began = atomic_load(&w->call_cpu_began);
	cpu = w->has_clock && cpu_began ? mg_cpu_clock_ms(w->clock) : -1;
	return mg_call_overran(cpu < 0 ? -1 : cpu - (cpu_began - 1), wall, ms);
}

/* Waits for every worker to end its rounds, and stops one whose call has
 * not returned within `ms` (a hang: the watchdog's signal unwinds it as a
 * timeout). */
static void finish(unsigned ms)
{
	if (!st.in_flight)
		return;
	st.in_flight = 0;
	atomic_store(&st.go, 1);
	atomic_store(&st.caller_done, 1);
	for (unsigned i = 0; i < st.workers; i++) {
		struct worker *w = &st.w[i];
		for (unsigned spins = 0; !atomic_load(&w->done) && !call_overdue(w, ms);)
			relax(&spins);
		if (!atomic_load(&w->done))
			pthread_kill(w->tid, mg_watchdog_signal());
		for (double t1 = now_ms(); !atomic_load(&w->done) && now_ms() - t1 < STOP_MS;)
			sched_yield();
		if (atomic_load(&w->done)) {
			pthread_join(w->tid, NULL);
			continue;
		}
		/* Lost: it keeps its mapping, and the slot gets a new one. */
		error("a hanging thread could not be stopped", w->index + 1);
		pthread_detach(w->tid);
		w->map = NULL;
		w->want = w->alt_stack = NULL;
	}
	mg_abi_threads_changed();
}

/* The caller's call starts once every worker is in its first call, and
 * the workers go on calling until it has returned: it overlaps theirs
 * from its first instruction to its last, however the threads are
 * scheduled. */
static void run_in_threads(struct mg_outcome *o, const struct mg_layout *at, int clean_int)
{
	unsigned spins = 0;
	double t0;

	(void)at; /* the workers have sandboxes of their own */
	start(o->c);
	atomic_store_explicit(&st.go, 1, memory_order_release);
	for (t0 = now_ms(); atomic_load(&st.calling) < st.workers; relax(&spins))
		if (now_ms() - t0 > START_MS) {
			error("a thread did not start its calls within 5 s", o->c->threads);
			break;
		}
	mg_outcome_run(o, clean_int);
	atomic_store(&st.caller_done, 1);
	finish(mg_case_timeout_ms(o->c));
}

static void abandon_threads(void)
{
	finish(mg_case_timeout_ms(st.c));
}

/* ---- the judge's rule -------------------------------------------------- */

/* A worker's call in a few words, for the verdict (the replay line's seed
 * makes it again): "memmove len 37, src%64 3, dst = src - 4, guard page
 * after". */
static void say_call(const struct mg_case *c, struct mg_verdict *out)
{
	mg_verdict_say(out, ": %s len %zu", mg_op_name(c->variant->op), c->len);
	if (c->overlap)
		mg_verdict_say(out, ", src%%64 %u, dst = src %c %ld", c->src_align,
			       c->dist < 0 ? '-' : '+', c->dist < 0 ? -c->dist : c->dist);
	else if (mg_op_has_src(c->variant->op))
		mg_verdict_say(out, ", src%%64 %u, dst%%64 %u", c->src_align, c->dst_align);
	else
		mg_verdict_say(out, ", dst%%64 %u, c 0x%02x", c->dst_align, (unsigned)c->value & 0xffu);
	mg_verdict_say(out, ", guard page %s", c->place == MG_PLACE_BEFORE ? "before" : "after");
}

/* Whether a worker's call has the caller's shape: the verdict describes
 * it only if not. */
static int same_shape(const struct mg_case *a, const struct mg_case *b)
{
	return a->len == b->len && a->src_align == b->src_align && a->dst_align == b->dst_align &&
	       a->overlap == b->overlap && a->dist == b->dist && a->place == b->place;
}

/* Which call it was: its round, and the case it drew when that is not the
 * caller's (draw_call). */
static void say_thread(const struct mg_outcome *o, const struct worker *w, struct mg_verdict *out)
{
	const struct mg_case *c = &w->call;

	mg_verdict_say(out,
		       " in thread %u of %u, called at the same time as the others on buffers "
		       "of its own (its call %u",
		       w->index + 1, o->c->threads, w->round + 1);
	if (!same_shape(c, o->c))
		say_call(c, out);
	mg_verdict_say(out, ")");
}

static void wrong_byte(const struct worker *w, struct mg_verdict *out)
{
	int inside = w->offset >= 0 && (size_t)w->offset < w->call.len;

	mg_verdict_start(out, inside ? MG_WRONG_RESULT : MG_OOB_WRITE);
	mg_verdict_byte(out, w->offset, w->got, w->want_byte);
	if (inside)
		mg_verdict_say(out, "dst[%lld] got 0x%02x want 0x%02x (len %zu)", w->offset, w->got,
			       w->want_byte, w->call.len);
	else
		mg_verdict_say(out, "wrote dst%+lld: 0x%02x, want 0x%02x (len %zu)", w->offset,
			       w->got, w->want_byte, w->call.len);
}

static void faulted(const struct mg_outcome *o, const struct worker *w, struct mg_verdict *out)
{
	char pc[MG_PC_MAX];

	if (w->fault.signo == mg_watchdog_signal()) {
		mg_verdict_set(out, MG_TIMEOUT, "no return within %u ms of CPU time (watchdog)",
			       mg_case_timeout_ms(o->c));
		return;
	}
	mg_variant_name_address(o->c->variant, w->fault.pc, pc, sizeof pc);
	mg_verdict_start(out, MG_CRASH);
	out->has |= MG_HAS_SIGNAL | MG_HAS_PC | MG_HAS_ADDRESS;
	out->signo = w->fault.signo;
	out->died = 0;
	snprintf(out->pc, sizeof out->pc, "%s", pc);
	out->address = (unsigned long long)(uintptr_t)w->fault.addr;
	mg_verdict_say(out, "%s at pc %s, address %p", mg_signal_name(w->fault.signo), pc,
		       w->fault.addr);
}

static int what_workers_saw(const struct mg_outcome *o, struct mg_verdict *out)
{
	if (st.error[0]) {
		mg_verdict_set(out, MG_ERROR, "the threads situation was not made: %s", st.error);
		return 1;
	}
	for (unsigned i = 0; i < st.workers; i++) {
		const struct worker *w = &st.w[i];
		switch (w->what) {
		case NOTHING: continue;
		case WRONG_BYTE: wrong_byte(w, out); break;
		case WRONG_RETURN:
			mg_verdict_set(out, MG_WRONG_RETURN, "returned dst%+td, want dst+%zu",
				       (unsigned char *)w->returned - (unsigned char *)mg_tagged(w->dst, w->call.tag),
				       w->call.variant->ret == MG_RET_DST_END ? w->call.len : 0);
			break;
		case FAULTED: faulted(o, w, out); break;
		}
		say_thread(o, w, out);
		st.failed = i + 1;
		return 1;
	}
	return 0;
}

/* A case that fails only in threads: say so, so that nobody looks for
 * the bug in a call made alone. The call that failed is the caller's
 * case, or a worker's own (draw_call); one that fails alone too is a
 * plain bug that a worker's call met first, and is said so. */
static void blame_threads(const struct mg_case *c, mg_check_fn check, struct mg_verdict *out)
{
	int worker = st.failed != 0;
	struct mg_case alone = worker ? st.w[st.failed - 1].call : *c;
	struct mg_verdict again;

	alone.threads = 0;
	check(&alone, 0, &again);
	if (again.cls != MG_OK) {
		if (worker)
			mg_verdict_say(out, "; in one thread, that call fails too");
		return;
	}
	mg_verdict_say(out, "; in one thread, %s passes: the routine is not thread-safe (POSIX XSH 2.9.1)",
		       worker ? "that call" : "the same case");
}

int mg_threads_call(const struct mg_case *c, unsigned index, unsigned round,
		    struct mg_threads_call *out)
{
	static struct worker w; /* a mapping to place the buffers in */
	struct mg_verdict shape;
	const struct mg_case *d = &out->call;

	if (!map_worker(&w))
		return -1;
	draw_call(c, index, round, &out->call);
	place(&w, d);
	out->src_off = (size_t)(w.src - w.map);
	out->dst_off = (size_t)(w.dst - w.map);
	out->lo_off = (size_t)(w.lo - w.map);
	out->hi_off = (size_t)(w.hi - w.map);
	out->fill_state = mg_mix64(d->seed);
	out->shape[0] = '\0';
	if (!same_shape(d, c)) {
		mg_verdict_start(&shape, MG_WRONG_RESULT);
		say_call(d, &shape);
		snprintf(out->shape, sizeof out->shape, "%s", shape.detail);
	}
	return 0;
}

static bool asks_for_threads(const struct mg_case *c)
{
	return c->threads != 0;
}

/* Threads can be made wherever the harness runs (on one core they take
 * turns, which the start line makes overlap all the same). */
static bool threads_possible(char *why, size_t size)
{
	(void)why;
	(void)size;
	return true;
}

/* N threads, each with a sandbox of its own sized for the spots' lengths,
 * at the guard pages. */
static bool threads_valid(const struct mg_case *c, char *why, size_t size)
{
	if (c->threads < MG_THREADS_MIN || c->threads > MG_THREADS_MAX) {
		snprintf(why, size, "--threads is %u to %u (or 1: none)", MG_THREADS_MIN,
			 MG_THREADS_MAX);
		return false;
	}
	if (c->len > MG_SPOT_MAX_LEN || c->oracle || c->spot != MG_SPOT_GUARD) {
		snprintf(why, size, "--threads is for lengths up to %zu at the guard pages",
			 MG_SPOT_MAX_LEN);
		return false;
	}
	return true;
}

const struct mg_situation mg_situation_threads = {
	.option = "--threads",
	.wanted = asks_for_threads,
	.possible = threads_possible,
	.valid = threads_valid,
	.timeout_ms = mg_case_timeout_ms,
	.run = run_in_threads,
	.abandon = abandon_threads,
	.broken = what_workers_saw,
	.judged_at = MG_JUDGED_LAST,
	.repeatable = false,
	.blame = blame_threads,
};
