/* Ending a run on SIGINT, SIGTERM or SIGHUP sent to the command's own PID,
 * as a terminal's ^C to the whole process group ends it: the children are
 * stopped, what was found stays saved, one line says the run was
 * interrupted, and the command exits 128 + the signal's number.
 *
 * The parent installs the handlers (mg_stop_install) and names each child
 * it forks (mg_stop_fork); the handler sends the signal's stop on to them
 * (SIGTERM) and leaves the rest to the parent's loop, which asks
 * mg_stop_signal() whether to go on. A child (mg_stop_fork returns 0 in it)
 * dies of the signals as before, is stopped by the kernel if its parent
 * dies first (PR_SET_PDEATHSIG), and blocks them only while it writes a
 * finding (mg_stop_hold), so that no finding is ever half written. */
#ifndef MG_STOP_H
#define MG_STOP_H

#include <signal.h>
#include <sys/types.h>

/* Handlers for SIGINT, SIGTERM and SIGHUP in the parent. `who` ("memgate
 * verify") starts the "interrupted" line. With `at_once` the process has
 * no children to stop and nothing to save: the handler says the line
 * itself and exits 128 + N at once (bench, speed). A signal the command
 * was started with ignored (nohup's SIGHUP) is left ignored. */
void mg_stop_install(const char *who, int at_once);

/* An at_once handler removes this file (a partial result of the run, made
 * by it, not yet renamed to its name) before it exits; NULL: none. */
void mg_stop_remove_on_stop(const char *path);

/* The signal that asked the run to stop, or 0. */
int mg_stop_signal(void);

/* fork(), with the child named for the handler (the stop signals are held
 * across the fork, so that none falls between the two). In the child: the
 * signals' default actions again, and a SIGTERM from the kernel if the
 * parent dies. Returns what fork returns; after a stop signal it forks
 * nothing and returns -1 with errno EINTR. */
pid_t mg_stop_fork(void);

/* The parent reaped `pid`: no more signals for it. */
void mg_stop_reaped(pid_t pid);

/* Holds the stop signals (a finding is being written) and lets them in
 * again; the pair nests nowhere. */
void mg_stop_hold(sigset_t *saved);
void mg_stop_release(const sigset_t *saved);

/* Prints "WHO: interrupted by SIGTERM[; WHERE]" on stderr and returns
 * 128 + the signal's number, the exit status. */
int mg_stop_say(const char *where);

#endif
