/* The part of the standalone program that `scripts/repro --emit-c` writes
 * for a case memgate ran in several threads at once (--threads; the
 * threads situation, harness/engine/thread.c). It takes the place of
 * targets/standalone.c's main section, after its other sections (its
 * "alone" section also serves a case with tagged pointers);
 * targets/emit_c.c writes what it needs of the case before it: THREADS,
 * ROUNDS, struct call and the workers' calls in calls[][], call_at and
 * reference_at (the routine and its reference at a call's own length and
 * value). scripts/c-sections cuts the section below into
 * build/gen/standalone_threads_text.h, and tests/run.d/repro.sh builds and
 * runs the programs written with it.
 *
//@ threads_notes
 *
 * In threads, as memgate's threads situation runs it: THREADS - 1 workers,
 * each with a mapping of its own ([guard] source region [guard]
 * destination region [guard]), wait at a start line; once every one is in
 * its calls, this thread (thread 1) makes the case's call. Each worker
 * calls the routine again and again, ROUNDS times at least and until that
 * call has returned, with the calls memgate's worker drew (their lengths,
 * alignments, guard page, value, and bytes from the same generator; after
 * ROUNDS the list starts over, where memgate draws more). The threads'
 * timing is the machine's: a race may need a few runs to show. The case's
 * call is judged first, then each worker's first wrong byte, wrong return,
 * fault or hang; the call that failed is then made once more alone, in a
 * child process, and the verdict says whether it fails there too, as
 * memgate's does.
 */
//@ alone
#include <sys/wait.h>
#include <unistd.h>

/* Whether run(arg) exits 0 in a child process, the only thread there, on
 * its copy of the buffers, its printing silenced: a call made again apart,
 * for what a verdict's last words say of it (in one thread, untagged). */
static int passes_in_child(int (*run)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(2);
		_exit(run(arg));
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The case's call alone, in a child (passes_in_child). */
static int case_alone(void *unused)
{
	(void)unused;
	catch_signals(on_signal);
	if (sigsetjmp(escape, 1)) {
		after_call();
		return report_fault();
	}
	set_timer(TIMEOUT_MS);
	returned = call_variant(dst, src);
	after_call();
	return report_bytes();
}

//@ threads
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

enum seen { NOTHING, WRONG_BYTE, WRONG_RETURN, FAULTED };

struct worker {
	pthread_t tid;
	unsigned index; /* 2 to THREADS: thread 1 is the case's */
	unsigned char *map, *want;
	sigjmp_buf escape;
	atomic_int done;
	int hung; /* its call did not return in time */
	/* the first thing it saw wrong, in its call number `calls` */
	unsigned calls;
	const struct call *call;
	enum seen seen;
	ptrdiff_t offset;
	unsigned char got, wanted;
	void *returned;
	int signo;
	void *addr, *pc;
};

#define MAP_SIZE (3 * PAGE + 2 * REGION)

static struct worker workers[THREADS - 1];
static atomic_int calling, go, caller_done;
static _Thread_local struct worker *self; /* in a worker: its own */

/* A fault in a worker ends that worker's calls; one in thread 1 is the
 * case's (on_signal). */
static void on_any_signal(int signo, siginfo_t *info, void *context)
{
	struct worker *w = self;

	if (!w) {
		on_signal(signo, info, context);
		return;
	}
	w->signo = signo;
	w->addr = info->si_addr;
	w->pc = context_pc(context);
	siglongjmp(w->escape, 1);
}

/* memgate's generator for a worker's bytes (harness/engine/rng.h):
 * splitmix64, from the state in the call's `fill`. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = (*state += 0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void rng_fill(unsigned char *p, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = rng_next(state);

		memcpy(p + i, &x, n - i < 8 ? n - i : 8);
	}
}

/* One call on the worker's buffers, filled as memgate's were, and judged:
 * the first window byte unlike the reference's, else the return value. */
static void one_call(struct worker *w, const struct call *cl)
{
	unsigned char *src = w->map + cl->src_off, *dst = w->map + cl->dst_off;
	unsigned char *lo = w->map + cl->lo_off, *want = w->want + cl->lo_off;
	size_t n = cl->hi_off - cl->lo_off;
	uint64_t state = cl->fill;
	void *r;

	rng_fill(lo, n, &state);
	if (HAS_SRC && !cl->overlap)
		rng_fill(src, cl->len, &state);
	memcpy(want, lo, n);
	reference_at(want + (dst - lo), cl->overlap ? want + (src - lo) : src, cl->len, cl->value);
	r = call_at(dst, src, cl->len, cl->value);
	for (size_t i = 0; i < n; i++)
		if (lo[i] != want[i]) {
			w->seen = WRONG_BYTE;
			w->offset = lo + i - dst;
			w->got = lo[i];
			w->wanted = want[i];
			return;
		}
	if (RETURNS_DST && r != dst + cl->ret_off) {
		w->seen = WRONG_RETURN;
		w->returned = r;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;

	self = w;
	if (sigsetjmp(w->escape, 1)) {
		w->seen = FAULTED;
	} else {
		atomic_fetch_add(&calling, 1);
		while (!atomic_load(&go))
			sched_yield();
		while ((w->calls < ROUNDS || !atomic_load(&caller_done)) && w->seen == NOTHING) {
			w->call = &calls[w->index - 2][w->calls % ROUNDS];
			w->calls++;
			one_call(w, w->call);
		}
	}
	atomic_store(&w->done, 1);
	return NULL;
}

/* The workers, with the timer's signal blocked: it is thread 1's. */
static void start_workers(void)
{
	sigset_t alarm, old;

	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, &old);
	for (unsigned i = 0; i < THREADS - 1; i++) {
		struct worker *w = &workers[i];

		w->index = i + 2;
		w->map = mmap(NULL, MAP_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		w->want = malloc(MAP_SIZE);
		if (w->map == MAP_FAILED || !w->want ||
		    mprotect(w->map + PAGE, REGION, PROT_READ | PROT_WRITE) ||
		    mprotect(w->map + 2 * PAGE + REGION, REGION, PROT_READ | PROT_WRITE))
			die("a worker's buffers");
		if (pthread_create(&w->tid, NULL, work, w))
			die("pthread_create");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while ((unsigned)atomic_load(&calling) < THREADS - 1)
		sched_yield();
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Ends the workers' calls after the case's; one that has not returned
 * within TIMEOUT_MS is a hang, left running until the program exits. */
static void finish_workers(void)
{
	atomic_store(&caller_done, 1);
	for (unsigned i = 0; i < THREADS - 1; i++) {
		struct worker *w = &workers[i];
		double t0 = now_ms();

		while (!atomic_load(&w->done) && now_ms() - t0 < TIMEOUT_MS)
			sched_yield();
		if (atomic_load(&w->done))
			pthread_join(w->tid, NULL);
		else
			w->hung = 1;
	}
}

/* A worker's failed call alone, in a child (passes_in_child). */
static int worker_alone(void *arg)
{
	struct worker *w = arg;

	self = w;
	w->seen = NOTHING;
	catch_signals(on_any_signal);
	if (sigsetjmp(w->escape, 1))
		return 1;
	set_timer(TIMEOUT_MS);
	one_call(w, w->call);
	set_timer(0);
	return w->seen != NOTHING;
}

/* What a worker saw, in memgate's words: the call's class and detail, the
 * thread and call, and what that call does alone. */
static int worker_verdict(struct worker *w)
{
	const struct call *cl = w->call;
	const char *cls = "timeout";
	char detail[512], pc[96];
	int n;

	if (w->hung) {
		n = snprintf(detail, sizeof detail, "no return within %d ms (timer)", TIMEOUT_MS);
	} else if (w->seen == WRONG_BYTE && w->offset >= 0 && (size_t)w->offset < cl->len) {
		cls = "wrong-result";
		n = snprintf(detail, sizeof detail, "dst[%td] got 0x%02x want 0x%02x (len %zu)",
			     w->offset, w->got, w->wanted, cl->len);
	} else if (w->seen == WRONG_BYTE) {
		cls = "out-of-bounds-write";
		n = snprintf(detail, sizeof detail, "wrote dst%+td: 0x%02x, want 0x%02x (len %zu)",
			     w->offset, w->got, w->wanted, cl->len);
	} else if (w->seen == WRONG_RETURN) {
		cls = "wrong-return";
		n = snprintf(detail, sizeof detail, "returned dst%+td, want dst+%zu",
			     (unsigned char *)w->returned - (w->map + cl->dst_off), cl->ret_off);
	} else if (w->signo == SIGALRM) {
		n = snprintf(detail, sizeof detail, "no return within %d ms (timer)", TIMEOUT_MS);
	} else {
		cls = "crash";
		pc_text(pc, sizeof pc, w->pc);
		n = snprintf(detail, sizeof detail, "%s at pc %s, address %p",
			     signal_name(w->signo), pc, w->addr);
	}
	snprintf(detail + n, sizeof detail - (size_t)n,
		 " in thread %u of %u, called at the same time as the others on buffers of its "
		 "own (its call %u%s)",
		 w->index, THREADS, w->calls, cl->shape);
	verdict_tail = passes_in_child(worker_alone, w) ? "; in one thread, that call passes: the routine is "
					 "not thread-safe (POSIX XSH 2.9.1)"
				       : "; in one thread, that call fails too";
	return verdict(cls, detail);
}

static int workers_verdict(void)
{
	for (unsigned i = 0; i < THREADS - 1; i++)
		if (workers[i].hung || workers[i].seen != NOTHING)
			return worker_verdict(&workers[i]);
	printf("verdict: ok\n");
	return 0;
}

int main(void)
{
	set_up();
	printf("case:    %s\nmemgate: %s\n", case_text, memgate_verdict);
	/* The case's own verdict ends with what its call does alone. */
	if (passes_in_child(case_alone, NULL))
		verdict_tail = "; in one thread, the same case passes: the routine is not "
			       "thread-safe (POSIX XSH 2.9.1)";
	catch_signals(on_any_signal);
	start_workers();
	if (sigsetjmp(escape, 1)) {
		finish_workers();
		after_call();
		exit(report_fault());
	}
	atomic_store(&go, 1);
	set_timer(TIMEOUT_MS);
	returned = call_variant(dst, src);
	set_timer(0);
	finish_workers();
	after_call();
	/* exit, not return: a hung worker may still be running. */
	if (report_bytes())
		exit(1);
	verdict_tail = "";
	exit(workers_verdict());
}
