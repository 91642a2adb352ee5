#include "noreturn.h"

const char *volatile mg_noreturn_called;

/* The stubs take no arguments: whatever the routine passed (__assert_fail's
 * message, __fortify_fail's) is ignored, since only reaching one matters.
 * The trap is the arch's undefined or breakpoint instruction (SIGILL on x86,
 * SIGTRAP on aarch64), which the fault handler takes. */
#define MG_NORETURN_DEFINE(name)                                                                   \
	_Noreturn void mg_noreturn_##name(void)                                                    \
	{                                                                                          \
		mg_noreturn_called = #name;                                                        \
		__builtin_trap();                                                                  \
	}
MG_NORETURN_FUNCTIONS(MG_NORETURN_DEFINE)
