#include "fault.h"
#include "abi.h"
#include "cpu.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCHDOG_TICK_MS 10u
#define ALT_STACK_BYTES	 (64u << 10)

sigjmp_buf mg_fault_jmp;
_Thread_local struct mg_fault_catch *mg_fault_catch;

/* Odd while a variant runs; bumped at each start and end, so the watchdog can
 * tell one long call from many short ones without a clock read per call. */
static _Atomic unsigned long call_seq;
static _Atomic unsigned call_timeout_ms;
static pthread_t main_thread;
static struct mg_fault last_fault;

/* The faults a variant can take. The watchdog signal is added at run time
 * (real-time signal numbers are not constants). */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
#define FAULT_SIGNAL_COUNT (sizeof fault_signals / sizeof fault_signals[0])
/* What was installed before us (libFuzzer's, ASan's or the default), to hand
 * a fault of the harness itself on to. */
static struct sigaction previous[FAULT_SIGNAL_COUNT];

static int in_call(void)
{
	return atomic_load_explicit(&call_seq, memory_order_relaxed) & 1;
}

/* The signals whose handler returned into the call (a step, a fault
 * resumed at its fixup), on the main thread: mg_fault_resumed. */
static volatile unsigned long resumed;

unsigned long mg_fault_resumed(void)
{
	return resumed;
}

int (*volatile mg_fault_step_hook)(void *ucontext);
int (*volatile mg_fault_fixup_hook)(const siginfo_t *info, void *ucontext);

/* A step's trap is TRAP_TRACE; but Linux reports a debug exception whose
 * DR6 names no cause as TRAP_BRKPT (it takes it for icebp), and under a
 * hypervisor a single-step trap now and then arrives so: a correct routine,
 * stepped, "crashed" with SIGTRAP (si_code TRAP_BRKPT) once in a make check
 * (2026-12-02, KVM guest). The hook takes either only while a stepped call
 * runs; the uninterrupted sweep still sees a routine's own int1. */
static int is_step_code(int code)
{
	return code == TRAP_TRACE || code == TRAP_BRKPT;
}

/* A signal that found the thread pointer elsewhere ends the call as a
 * crash (a real handler would run with it), but for the watchdog's: a
 * routine that hangs with it borrowed is a timeout. */
static unsigned foreign_crash(int signo, unsigned foreign)
{
	return signo == mg_watchdog_signal() ? 0 : foreign;
}

static void on_signal(int signo, siginfo_t *info, void *ucontext)
{
	/* First: until then no thread-local access is safe. */
	unsigned foreign = foreign_crash(signo, mg_cpu_handler_entry());
	int (*step)(void *) = mg_fault_step_hook;
	struct mg_fault_catch *worker = mg_fault_catch;

	int (*fixup)(const siginfo_t *, void *) = mg_fault_fixup_hook;

	if (!foreign && signo == SIGTRAP && is_step_code(info->si_code) && step && step(ucontext)) {
		resumed++;
		return;
	}
	if (!foreign && signo == SIGSEGV && fixup && !worker && in_call() && fixup(info, ucontext)) {
		resumed++;
		return;
	}
	if (worker) {
		mg_fault_catch = NULL;
		memset(&worker->fault, 0, sizeof worker->fault);
		worker->fault.signo = signo;
		worker->fault.code = info->si_code;
		worker->fault.addr = info->si_addr;
		worker->fault.foreign_tp = foreign;
		if (signo != mg_watchdog_signal())
			mg_fault_decode_context(ucontext, &worker->fault);
		siglongjmp(worker->jmp, 1);
	}
	if (!in_call()) {
		if (signo == mg_watchdog_signal())
			return; /* the call ended just as the watchdog fired */
		/* A fault in the harness itself: hand it to whoever handled it
		 * before us (a fuzzer saves the input, a sanitizer reports it),
		 * or die of it, visibly. The faulting instruction runs again. */
		for (size_t i = 0; i < FAULT_SIGNAL_COUNT; i++)
			if (fault_signals[i] == signo)
				sigaction(signo, &previous[i], NULL);
		return;
	}
	memset(&last_fault, 0, sizeof last_fault);
	last_fault.signo = signo;
	last_fault.code = info->si_code;
	last_fault.addr = info->si_addr;
	last_fault.foreign_tp = foreign;
	if (signo != mg_watchdog_signal())
		mg_fault_decode_context(ucontext, &last_fault);
	siglongjmp(mg_fault_jmp, 1);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The CPU time, in ms, that `clock` (a thread's or a process's) has used;
 * -1 if it cannot be read. */
double mg_cpu_clock_ms(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return -1;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A call is stopped once it has run for its limit on the CPU, not once
 * that much wall time has passed (mg_call_overran): on a loaded machine a
 * correct routine waits for a core, and the wait is the machine's, never
 * the routine's; a routine that spins still uses the CPU, and is stopped
 * at the same count of work on any machine. */
static void *watchdog(void *unused)
{
	unsigned long seen = 0;
	unsigned waited = 0;
	double cpu_at_start = 0;
	clockid_t main_clock;
	int have_clock = pthread_getcpuclockid(main_thread, &main_clock) == 0;

	(void)unused;
	for (;;) {
		sleep_ms(WATCHDOG_TICK_MS);
		unsigned long seq = atomic_load(&call_seq);
		if (!(seq & 1) || seq != seen) {
			seen = seq;
			waited = 0;
			cpu_at_start = have_clock ? mg_cpu_clock_ms(main_clock) : -1;
			continue;
		}
		waited += WATCHDOG_TICK_MS;
		unsigned limit = atomic_load(&call_timeout_ms);
		double used = cpu_at_start < 0 ? -1 : mg_cpu_clock_ms(main_clock) - cpu_at_start;
		if (mg_call_overran(used, waited, limit)) {
			pthread_kill(main_thread, mg_watchdog_signal());
			waited = 0;
			cpu_at_start = have_clock ? mg_cpu_clock_ms(main_clock) : -1;
		}
	}
	return NULL;
}

static void install_handlers(void)
{
	static char alt_stack[ALT_STACK_BYTES];
	stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
	struct sigaction sa;

	if (sigaltstack(&ss, NULL) != 0) {
		perror("memgate: could not judge: sigaltstack");
		exit(2);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	/* NODEFER: we leave by siglongjmp without restoring the mask, so the
	 * signal must not stay blocked for the next case. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < FAULT_SIGNAL_COUNT; i++)
		sigaction(fault_signals[i], &sa, &previous[i]);
	sigaction(mg_watchdog_signal(), &sa, NULL);
}

static void start_watchdog(void)
{
	pthread_t tid;
	sigset_t all, old;

	main_thread = pthread_self();
	/* The watchdog must never take the signals meant for the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&tid, NULL, watchdog, NULL) != 0) {
		fprintf(stderr, "memgate: could not judge: cannot start the watchdog thread\n");
		exit(2);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_detach(tid);
	mg_abi_threads_changed();
}

static int initialized;
/* The watchdog starts with the first call a process makes, not before: a
 * process that only forks children to run cases (replay, verify, AFL++'s
 * fork server) then has no thread when it forks. That spares each child a
 * thread it does not need, and qemu-user (7.2) aborts a forked child that
 * creates a thread when its parent had one. */
static int watchdog_running;

void mg_fault_init(void)
{
	if (initialized)
		return;
	initialized = 1;
	install_handlers();
	/* Threads do not survive fork: a forked child (an isolated case, an
	 * AFL++ fork-server child) starts a watchdog of its own. */
	pthread_atfork(NULL, NULL, mg_fault_after_fork);
}

void mg_fault_after_fork(void)
{
	watchdog_running = 0;
}

/* Only the main thread writes call_seq, so a plain load and store do: no
 * locked instruction on the hot path. */
static void bump_call_seq(void)
{
	unsigned long seq = atomic_load_explicit(&call_seq, memory_order_relaxed);
	atomic_store_explicit(&call_seq, seq + 1, memory_order_release);
}

static volatile int *call_flag;

void mg_call_watch(volatile int *flag)
{
	call_flag = flag;
}

/* MEMGATE_TEST_DEAF_CALLS=1, for memgate's own tests: every call runs with
 * the watchdog's signal blocked, as a routine that broke the signal path
 * leaves it (gs borrowed, every signal blocked), so that the parents'
 * deadlines (run/isolate.c, run/verify.c) are what ends a hang. */
static int deaf_calls(void)
{
	static int on = -1;

	if (on < 0) {
		const char *v = getenv("MEMGATE_TEST_DEAF_CALLS");
		on = v && *v;
	}
	return on;
}

static void watchdog_signal_mask(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, mg_watchdog_signal());
	pthread_sigmask(how, &set, NULL);
}

unsigned mg_check_timeout_ms = 1000;

void mg_call_begin(unsigned timeout_ms)
{
	if (!watchdog_running) {
		start_watchdog();
		watchdog_running = 1;
	}
	if (atomic_load_explicit(&call_timeout_ms, memory_order_relaxed) != timeout_ms)
		atomic_store_explicit(&call_timeout_ms, timeout_ms, memory_order_relaxed);
	if (call_flag)
		*call_flag += 1; /* odd: in the call */
	if (deaf_calls())
		watchdog_signal_mask(SIG_BLOCK);
	bump_call_seq();
}

void mg_call_end(void)
{
	if (deaf_calls())
		watchdog_signal_mask(SIG_UNBLOCK);
	bump_call_seq();
	if (call_flag)
		*call_flag += 1;
}

void mg_fault_unblock(void)
{
	sigset_t faults;

	sigemptyset(&faults);
	for (size_t i = 0; i < FAULT_SIGNAL_COUNT; i++)
		sigaddset(&faults, fault_signals[i]);
	sigaddset(&faults, mg_watchdog_signal());
	pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
}

void mg_fault_hold_others(sigset_t *old)
{
	sigset_t others;

	sigfillset(&others);
	for (size_t i = 0; i < FAULT_SIGNAL_COUNT; i++)
		sigdelset(&others, fault_signals[i]);
	sigdelset(&others, mg_watchdog_signal());
	pthread_sigmask(SIG_BLOCK, &others, old);
}

void mg_fault_take(struct mg_fault *out)
{
	mg_call_end();
	/* The handler left by siglongjmp, which keeps the signal mask as the
	 * kernel set it for the handler. SA_NODEFER keeps the signal out of
	 * it, yet in the fuzz targets (libFuzzer, with UBSan's runtime, which
	 * intercepts sigaction) SIGSEGV was found blocked after the first
	 * fault: a second one in the process, as a re-run of the case for its
	 * blame makes, then killed it. */
	mg_fault_unblock();
	mg_cpu_reset_state();
	*out = last_fault;
}
