/* Byte-granular access checking under valgrind's memcheck.
 *
 * A guard page only sees an access that reaches it, and a buffer that is not
 * flush with its guard page can be over-read by up to 63 bytes unseen. Under
 * memcheck the bytes around each buffer (MG_REDZONE on each side, in the
 * buffer's arena) are marked no-access for the duration of the call, so any
 * access to them is reported, from C or assembly alike. If memcheck's error
 * count rose during the call, the call is run again with one side of one
 * buffer fenced at a time, and the distance is bisected, to name the access
 * as the engine would have: buffer, side, how far.
 *
 * Run under `valgrind --partial-loads-ok=no --vex-iropt-level=0` (as `make
 * valgrind` does): by default memcheck forgives an aligned load that is only
 * partly out of bounds, and drops a load whose value is never used.
 *
 * Outside valgrind each hook costs one test of a cached flag. */
#ifndef MG_MEMCHECK_H
#define MG_MEMCHECK_H

#include "case.h"
#include "memcheck_mode.h"
#include "outcome.h"
#include "sandbox.h"
#include "verdict.h"

#include <stddef.h>

/* The memcheck flags this mode needs, for the replay lines it prints. */
#define MG_MEMCHECK_FLAGS "--partial-loads-ok=no --vex-iropt-level=0"

/* The fenced bytes on one side of a buffer (or of memmove's one region). */
struct mg_zone {
	unsigned char *edge; /* the buffer's first byte, or one past its last */
	size_t room;	     /* bytes fenced on that side, up to MG_REDZONE */
	int after;	     /* past the end (1) or before the start (0) */
	enum mg_buffer buffer; /* whose: src, or dst (memmove's one region too) */
};

/* One case's fences, and memcheck's error count before the call. */
struct mg_memcheck {
	struct mg_zone zone[4];
	unsigned zones;
	unsigned errors_before;
	int tripped;	   /* the count rose during the call */
	unsigned unfenced; /* errors a call makes with no fences (while blaming) */
	int clean_int;	   /* as the call was made, for the re-runs */
};

void mg_memcheck_arm_slow(struct mg_memcheck *m, const struct mg_sandbox *sb,
			  const struct mg_case *c, const struct mg_layout *at, int clean_int);
void mg_memcheck_disarm_slow(struct mg_memcheck *m);
int mg_memcheck_blame_slow(const struct mg_memcheck *m, const struct mg_outcome *call,
			   struct mg_verdict *out);

/* Right before the call: fences the bytes around the buffers. */
static inline void mg_memcheck_arm(struct mg_memcheck *m, const struct mg_sandbox *sb,
				   const struct mg_case *c, const struct mg_layout *at,
				   int clean_int)
{
	if (__builtin_expect(mg_memcheck_on != 0, 0))
		mg_memcheck_arm_slow(m, sb, c, at, clean_int);
}

/* Right after it, before the harness reads anything: lifts the fences. */
static inline void mg_memcheck_disarm(struct mg_memcheck *m)
{
	if (__builtin_expect(mg_memcheck_on > 0, 0))
		mg_memcheck_disarm_slow(m);
}

/* For a call that returned: if memcheck saw a bad access during it, finds
 * which buffer, which side and how far by calling the variant again, and
 * returns 1 with an out-of-bounds-read or -write verdict. A read past a
 * buffer that stays in a naturally aligned block (at most 64 bytes) holding
 * one of its bytes cannot fault on an MMU: it is the aligned-over-read
 * warning (returns 0, out->warnings and out->overread set), or the class of
 * that name on aarch64 across a 16-byte MTE granule and under
 * --overread=strict. Writes outside a buffer are always failures. */
static inline int mg_memcheck_blame(const struct mg_memcheck *m, const struct mg_outcome *call,
				    struct mg_verdict *out)
{
	if (__builtin_expect(mg_memcheck_on > 0, 0))
		return mg_memcheck_blame_slow(m, call, out);
	return 0;
}

#endif
