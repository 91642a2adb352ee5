#include "stop.h"
#include "fault.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Room for every child a command runs at once (verify: one per job and the
 * huge check's). One past it still gets the kernel's SIGTERM when the
 * parent ends (PR_SET_PDEATHSIG). */
#define MAX_CHILDREN 256

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNAL_COUNT (sizeof stop_signals / sizeof stop_signals[0])

static volatile sig_atomic_t stop_signo;
static volatile pid_t children[MAX_CHILDREN];
static const char *stop_who = "memgate";
static const char *volatile remove_on_stop;
static int installed, exit_at_once;
/* Which stop signals have on_stop: not one that the command was started
 * with ignored, which stays ignored (nohup's SIGHUP; the SIGINT of a
 * script's background job), as a shell's trap leaves it. */
static int caught[STOP_SIGNAL_COUNT];
/* The at_once line, made before any signal (the handler cannot format). */
static char at_once_line[STOP_SIGNAL_COUNT][160];

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
		sigaddset(set, stop_signals[i]);
}

/* Async-signal-safe: kill, write and _exit only. A second signal insists:
 * the children get SIGKILL. */
static void on_stop(int signo)
{
	int again = stop_signo != 0;

	if (!again)
		stop_signo = signo;
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill(children[i], again ? SIGKILL : SIGTERM);
	if (!exit_at_once)
		return;
	if (remove_on_stop)
		unlink(remove_on_stop);
	for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
		if (stop_signals[i] == signo) {
			ssize_t ignored = write(2, at_once_line[i], strlen(at_once_line[i]));
			(void)ignored;
		}
	_exit(128 + signo);
}

void mg_stop_install(const char *who, int at_once)
{
	struct sigaction sa;

	stop_who = who;
	exit_at_once = at_once;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	/* No SA_RESTART: a wait() in progress returns EINTR, and the loop
	 * around it sees the stop. */
	sigemptyset(&sa.sa_mask);
	stop_set(&sa.sa_mask);
	for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++) {
		struct sigaction was;

		snprintf(at_once_line[i], sizeof at_once_line[i], "%s: interrupted by %s\n", who,
			 mg_signal_name(stop_signals[i]));
		if (!caught[i] && sigaction(stop_signals[i], NULL, &was) == 0 && was.sa_handler == SIG_IGN)
			continue;
		caught[i] = 1;
		sigaction(stop_signals[i], &sa, NULL);
	}
	installed = 1;
}

void mg_stop_remove_on_stop(const char *path)
{
	remove_on_stop = path;
}

int mg_stop_signal(void)
{
	return stop_signo;
}

static void in_child(pid_t parent, const sigset_t *saved)
{
	memset((void *)children, 0, sizeof children);
	if (installed)
		for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
			if (caught[i])
				signal(stop_signals[i], SIG_DFL);
	installed = 0;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGTERM); /* the parent died before prctl */
	sigprocmask(SIG_SETMASK, saved, NULL);
}

pid_t mg_stop_fork(void)
{
	sigset_t block, saved;
	pid_t parent = getpid(), pid;

	stop_set(&block);
	sigprocmask(SIG_BLOCK, &block, &saved);
	if (stop_signo) {
		sigprocmask(SIG_SETMASK, &saved, NULL);
		errno = EINTR;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		in_child(parent, &saved);
		return 0;
	}
	for (size_t i = 0; pid > 0 && i < MAX_CHILDREN; i++)
		if (children[i] <= 0) {
			children[i] = pid;
			break;
		}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return pid;
}

void mg_stop_reaped(pid_t pid)
{
	for (size_t i = 0; pid > 0 && i < MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}

void mg_stop_hold(sigset_t *saved)
{
	sigset_t block;

	stop_set(&block);
	sigprocmask(SIG_BLOCK, &block, saved);
}

void mg_stop_release(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

int mg_stop_say(const char *where)
{
	int signo = stop_signo ? stop_signo : SIGTERM;

	fflush(stdout);
	fprintf(stderr, "%s: interrupted by %s%s%s\n", stop_who, mg_signal_name(signo),
		where ? "; " : "", where ? where : "");
	return 128 + signo;
}
