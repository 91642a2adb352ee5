/* Catching what a variant does wrong without dying of it: faults are taken
 * on an alternate stack and unwound with siglongjmp, and a watchdog thread
 * interrupts a call that does not return. */
#ifndef MG_FAULT_H
#define MG_FAULT_H

#include "verdict.h" /* enum mg_access */

#include <setjmp.h>
#include <stddef.h> /* size_t */
#include <signal.h> /* sigset_t */
#include <time.h>	/* clockid_t */

struct mg_fault {
	int signo;  /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP; mg_watchdog_signal(): timeout */
	int code;   /* si_code */
	void *addr; /* si_addr */
	void *pc;   /* where it happened */
	enum mg_access access;
	int general_protection; /* x86: #GP (e.g. a misaligned movaps), not a page fault */
	unsigned foreign_tp;	/* the signal came with the thread pointer elsewhere:
				 * mg_cpu_handler_entry's word for it, else 0 */
	const char *reading;	/* the arch's reading of the fault where it has one
				 * (mg_fault_decode_context), for the diagnosis;
				 * else NULL */
};

/* The CPU time, in ms, that `clock` (pthread_getcpuclockid's, or
 * clock_getcpuclockid's for a process) has used; -1 if it cannot be read.
 * A call's time limit counts this, not the wall clock: the watchdog, the
 * threads situation's and the parent's deadline (run/isolate.c). */
double mg_cpu_clock_ms(clockid_t clock);

/* The one rule of every call's time limit (the watchdog, the threads
 * situation's workers, the parents' deadlines): `cpu_ms` of CPU time
 * reached `limit_ms`; or, for a call that uses none (blocked, which a copy
 * never is), MG_WALL_FACTOR times the limit on the wall clock; or, where
 * the CPU clock cannot be read (cpu_ms < 0), the limit on the wall clock. */
#define MG_WALL_FACTOR 20u
static inline int mg_call_overran(double cpu_ms, double wall_ms, unsigned limit_ms)
{
	if (cpu_ms < 0)
		return wall_ms >= limit_ms;
	return cpu_ms >= limit_ms || wall_ms >= (double)limit_ms * MG_WALL_FACTOR;
}

/* Installs the handlers and starts the watchdog; call once per process,
 * before the first guarded call. */
void mg_fault_init(void);

/* In a child forked after mg_fault_init: threads do not survive fork, so
 * this makes the child start a watchdog of its own with its first call
 * (mg_fault_init registers it to run after every fork). */
void mg_fault_after_fork(void);

/* Guarded-call protocol, used as:
 *	if (sigsetjmp(mg_fault_jmp, 0)) { mg_fault_take(&f); ...faulted... }
 *	mg_call_begin(ms); call; mg_call_end();
 * sigsetjmp must sit in the caller's own frame, hence a macro-free protocol
 * rather than a callback. No system call is made on the non-faulting path. */
extern sigjmp_buf mg_fault_jmp;
/* From now on mg_call_begin and mg_call_end (also after a fault) each add
 * 1 to *flag, so that it is odd during a call; NULL stops that. Kept in
 * memory shared with a parent, the flag tells it whether a process that
 * ended did so inside a call of the variant (the variant's doing) or
 * outside (the harness's), and whether one call has run too long. */
void mg_call_watch(volatile int *flag);
void mg_call_begin(unsigned timeout_ms);

/* Base per-call time limit, in ms; mg_timeout_for adds to it by length. */
extern unsigned mg_check_timeout_ms;

/* 1 ms more per 4 KiB, which even a byte loop under valgrind meets; past
 * 32 MiB only per 256 KiB, so a 4 GiB call gets seconds, not minutes. */
static inline unsigned mg_timeout_for(size_t len)
{
	size_t extra = len >> 12;

	if (extra > 8192)
		extra = 8192 + (len >> 18);
	return mg_check_timeout_ms + (unsigned)extra;
}
/* How many signals so far returned into a call of the main thread (a
 * step, a fault resumed at its fixup): a check that needs the call's
 * state kept across a signal compares it before and after. */
unsigned long mg_fault_resumed(void);
void mg_call_end(void);
/* Unblocks the fault signals and the watchdog's in the calling thread. */
void mg_fault_unblock(void);
/* Blocks every other signal in the calling thread, the mask before it in
 * *old: no handler but the harness's runs until the mask is put back. */
void mg_fault_hold_others(sigset_t *old);
/* After a fault: ends the call, copies out what happened and puts the CPU
 * state a variant may have changed back to the ABI's defaults. */
void mg_fault_take(struct mg_fault *out);

/* A worker thread's own guarded calls (thread.c): while a thread's
 * mg_fault_catch is set, a fault or the watchdog's signal in that thread
 * fills its `fault` and unwinds to its `jmp` (sigsetjmp'd by the worker),
 * whatever the main thread is doing. */
struct mg_fault_catch {
	sigjmp_buf jmp;
	struct mg_fault fault;
};
extern _Thread_local struct mg_fault_catch *mg_fault_catch;

/* While set, each single-step trap (SIGTRAP, TRAP_TRACE) goes to it first,
 * with the signal's machine context; it returns 1 if the trap was its own
 * (interrupt.c), and the interrupted code then goes on. */
extern int (*volatile mg_fault_step_hook)(void *ucontext);

/* While set, a SIGSEGV inside a guarded call of the main thread goes to it
 * first, with its siginfo and machine context; it returns 1 if it set the
 * context to resume (the exception-table emulation, usercopy.c), and the
 * call then goes on from there; 0 and the fault is taken as any other. */
extern int (*volatile mg_fault_fixup_hook)(const siginfo_t *info, void *ucontext);

/* Per-arch (fault_<arch>.c): fills pc, access and general_protection from the
 * signal's machine context. */
void mg_fault_decode_context(const void *ucontext, struct mg_fault *f);

/* The signal the watchdog interrupts a hanging call with: a real-time
 * signal, not SIGALRM, since libFuzzer's -timeout and the sanitizers'
 * runtimes own SIGALRM and SIGUSR1/2, and must keep them. */
static inline int mg_watchdog_signal(void)
{
	return SIGRTMIN + 1;
}

#endif
