/* The failure functions a C library's routines may call, and that never
 * return: glibc's _chk entry points call __chk_fail when the destination is
 * smaller than the length, code built with the stack protector calls
 * __stack_chk_fail, and so on. A routine submitted as it lives in its tree
 * (an object of libc.a, say) references them, and the gate may not resolve
 * them to the C library's own (which would end the process, or print and
 * abort): scripts/gate-compile renames each reference NAME to
 * mg_noreturn_NAME, defined here. Reaching one is a finding of its own,
 * "called NAME": the stub records the name and traps, the fault handler
 * unwinds the call as it does any fault, and the judge names the call
 * instead of the trap (outcome.c). */
#ifndef MG_NORETURN_H
#define MG_NORETURN_H

/* The name of the failure function the current call reached, or NULL;
 * cleared before every call (mg_outcome_arm). */
extern const char *volatile mg_noreturn_called;

/* X(NAME): every failure function stubbed, as scripts/orchestration/
 * submission.py's NORETURN_FAILURES lists them too (the two must agree). */
#define MG_NORETURN_FUNCTIONS(X)                                                                   \
	X(__chk_fail)                                                                              \
	X(__fortify_fail)                                                                          \
	X(__stack_chk_fail)                                                                        \
	X(__stack_chk_fail_local)                                                                  \
	X(__assert_fail)                                                                           \
	X(abort)

#define MG_NORETURN_DECLARE(name) _Noreturn void mg_noreturn_##name(void);
MG_NORETURN_FUNCTIONS(MG_NORETURN_DECLARE)
#undef MG_NORETURN_DECLARE

#endif
