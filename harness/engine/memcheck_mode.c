#include "memcheck_mode.h"

#include <stdlib.h>
#include <string.h>

/* valgrind's headers come with valgrind, which `make` does not need: built
 * without them, this is never under memcheck. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

int mg_memcheck_on = -1;
int mg_overread_strict;

int mg_memcheck_running(void)
{
	if (mg_memcheck_on < 0) {
		const char *overread = getenv("MEMGATE_OVERREAD");
		mg_memcheck_on = RUNNING_ON_VALGRIND != 0;
		/* For commands without --overread (scripts/repro's replays). */
		if (overread && strcmp(overread, "strict") == 0)
			mg_overread_strict = 1;
	}
	return mg_memcheck_on;
}
