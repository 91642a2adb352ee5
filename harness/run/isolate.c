#include "isolate.h"
#include "check.h"
#include "fault.h"
#include "stop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child shares with its parent. */
struct isolated {
	struct mg_verdict verdict;
	volatile int in_call; /* the variant is running (mg_call_watch) */
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
}

/* The child's verdict if it finished, else what its end says. */
static void collect(pid_t pid, const struct isolated *shared, struct mg_verdict *out)
{
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		; /* a stop signal: its handler has stopped the child already */
	mg_stop_reaped(pid);
	if (got < 0)
		not_judged(out, "wait for the case's child");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && shared->done)
		*out = shared->verdict;
	else
		mg_verdict_ended(out, status, shared->in_call);
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
		collect(pid, shared, out);
	munmap(shared, sizeof *shared);
}
