#include "isolate.h"
#include "check.h"
#include "fault.h"
#include "situation.h"
#include "outcome.h"
#include "stop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the child shares with its parent. */
struct isolated {
	struct mg_verdict verdict;
	volatile int in_call; /* odd while the variant runs (mg_call_watch) */
	volatile int done;    /* the verdict is complete */
};

/* Signals a process gets from outside (a deadline, the OOM killer, ^C),
 * never from a variant, which makes no system calls. */
static int killed_from_outside(int signo)
{
	return signo == SIGKILL || signo == SIGTERM || signo == SIGINT || signo == SIGHUP;
}

void mg_verdict_ended(struct mg_verdict *out, int status, int in_call)
{
	out->warnings = 0;
	out->unjudged = 0;
	if (WIFSIGNALED(status) && killed_from_outside(WTERMSIG(status))) {
		mg_verdict_set(out, MG_ERROR, "the harness process was killed by %s",
			       mg_signal_name(WTERMSIG(status)));
	} else if (WIFSIGNALED(status)) {
		mg_verdict_start(out, MG_CRASH);
		out->has |= MG_HAS_SIGNAL;
		out->signo = WTERMSIG(status);
		out->died = 1;
		mg_verdict_say(out, "the harness process died of %s (%s) on this case",
			       mg_signal_name(out->signo), strsignal(out->signo));
	} else if (in_call) {
		mg_verdict_never_returned(out, WEXITSTATUS(status));
	} else {
		mg_verdict_set(out, MG_ERROR,
			       "the harness process exited with status %d before judging the case",
			       WEXITSTATUS(status));
	}
}

void mg_verdict_never_returned(struct mg_verdict *out, int exit_status)
{
	out->warnings = 0;
	out->unjudged = 0;
	mg_verdict_start(out, MG_CRASH);
	out->has |= MG_HAS_EXIT;
	out->exit_status = exit_status;
	if (exit_status >= 0)
		mg_verdict_say(out,
			       "the variant ended the process (exit status %d) during the call: "
			       "it never returned",
			       exit_status);
	else
		mg_verdict_say(out, "the variant ended the process during the call: it never "
				    "returned (found by the next process)");
}

static void run_child(const struct mg_case *c, struct isolated *shared)
{
	mg_call_watch(&shared->in_call);
	mg_check(c, &shared->verdict);
	mg_call_watch(NULL);
	shared->done = 1;
	_exit(0);
}

static void not_judged(struct mg_verdict *out, const char *what)
{
	mg_verdict_set(out, MG_ERROR, "cannot %s: %s", what, strerror(errno));
	out->warnings = 0;
	out->unjudged = 0;
}

unsigned mg_case_call_limit_ms(const struct mg_case *c)
{
	return mg_situation_timeout_ms(c);
}

void mg_verdict_unstopped(struct mg_verdict *out, unsigned ms)
{
	mg_verdict_set(out, MG_TIMEOUT,
		       "no return within %u ms of CPU time, and the watchdog's signal did not stop "
		       "the call: the process was killed (the routine left it unable to take a "
		       "signal)",
		       ms);
}

/* The child's own watchdog stops a call that overruns its limit with a
 * signal; the parent waits MG_UNSTOPPED_SPARE_MS more before it takes the
 * call for one the signal cannot stop: a routine that broke the signal
 * path itself (gs borrowed, so that the handler's every thread-local
 * access faults again) spins or nests there forever. */
/* And for the harness itself, outside the routine's calls: a case may
 * call it a dozen times over (its blame's reruns), each within its limit. */
#define CHILD_SPARE_MS 30000u
#define CHILD_CALLS    16u
/* The limits count the child's CPU time, as its watchdog does
 * (mg_call_overran): a child that waits for a core on a loaded machine is
 * not overdue. */
struct deadline {
	unsigned call_ms, case_ms; /* one call's limit, with the spare; the case's */
	clockid_t clock;	   /* the child's CPU clock, */
	int has_clock;		   /* if it can be read */
	double waited, call_since, cpu_since, cpu_start;
	int seq;
};

static double child_cpu_ms(const struct deadline *d)
{
	return d->has_clock ? mg_cpu_clock_ms(d->clock) : -1;
}

static void deadline_start(struct deadline *d, const struct mg_case *c, pid_t pid)
{
	unsigned call = mg_case_call_limit_ms(c);

	d->call_ms = call + MG_UNSTOPPED_SPARE_MS;
	d->case_ms = CHILD_SPARE_MS + CHILD_CALLS * call;
	d->has_clock = clock_getcpuclockid(pid, &d->clock) == 0;
	d->waited = d->call_since = 0;
	d->cpu_since = d->cpu_start = child_cpu_ms(d);
	d->seq = 0;
}

/* Whether the child is past its deadline, after `ms` more of waiting;
 * the call sequence `seq` (odd in a call) tells one call from many. */
static int deadline_passed(struct deadline *d, unsigned ms, int seq)
{
	double cpu = child_cpu_ms(d);

	d->waited += ms;
	if (seq != d->seq) {
		d->seq = seq;
		d->call_since = d->waited;
		d->cpu_since = cpu;
	}
	if (seq & 1 && mg_call_overran(cpu < 0 || d->cpu_since < 0 ? -1 : cpu - d->cpu_since,
				       d->waited - d->call_since, d->call_ms))
		return 1;
	return mg_call_overran(cpu < 0 || d->cpu_start < 0 ? -1 : cpu - d->cpu_start, d->waited,
			       d->case_ms);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* waitpid, but a child past its deadline is killed (*overdue set). */
static pid_t wait_or_kill(pid_t pid, const struct isolated *shared, struct deadline *d,
			  int *status, int *overdue)
{
	unsigned tick = 1;
	pid_t got;

	*overdue = 0;
	for (;;) {
		got = waitpid(pid, status, WNOHANG);
		if (got != 0 && !(got < 0 && errno == EINTR))
			return got; /* EINTR: a stop signal, whose handler stopped the child */
		if (got == 0 && !*overdue && deadline_passed(d, tick, shared->in_call)) {
			*overdue = 1;
			kill(pid, SIGKILL);
		}
		sleep_ms(tick);
		tick = tick < 64 ? tick * 2 : 64; /* a short case is waited for briefly */
	}
}

/* The child's verdict if it finished, else what its end says. */
static void collect(const struct mg_case *c, pid_t pid, const struct isolated *shared,
		    struct mg_verdict *out)
{
	struct deadline d;
	int status, overdue;
	pid_t got;

	deadline_start(&d, c, pid);
	got = wait_or_kill(pid, shared, &d, &status, &overdue);
	mg_stop_reaped(pid);
	if (got < 0)
		not_judged(out, "wait for the case's child");
	else if (overdue && shared->in_call & 1)
		mg_verdict_unstopped(out, d.call_ms);
	else if (overdue)
		mg_verdict_set(out, MG_ERROR,
			       "the harness process did not finish the case within %u ms of CPU "
			       "time: killed",
			       d.case_ms);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && shared->done)
		*out = shared->verdict;
	else
		mg_verdict_ended(out, status, shared->in_call & 1);
}

void mg_check_isolated(const struct mg_case *c, struct mg_verdict *out)
{
	struct isolated *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (shared == MAP_FAILED) {
		not_judged(out, "map memory to share with a child");
		return;
	}
	fflush(NULL);
	pid = mg_stop_fork();
	if (pid < 0)
		not_judged(out, "fork a child for the case");
	else if (pid == 0)
		run_child(c, shared);
	else
		collect(c, pid, shared, out);
	munmap(shared, sizeof *shared);
}
