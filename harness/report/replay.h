/* What names a finding wherever it is reported (its printout, its record,
 * the sweep's tally): the signature that tells two findings apart, and the
 * command that replays it. */
#ifndef MG_REPLAY_H
#define MG_REPLAY_H

#include "case.h"
#include "verdict.h"

#include <stddef.h>

/* "memcpy_x out-of-bounds-read dst past the end": what tells two findings
 * apart (variant, class, site), not how far or on which length. */
void mg_finding_signature(const struct mg_case *c, const struct mg_verdict *v, char *out,
			  size_t size);

/* The command that replays the finding (under valgrind when only memcheck
 * saw it), as words and as a line. */
void mg_finding_replay_argv(const struct mg_case *c, const struct mg_verdict *v, struct mg_argv *a);
void mg_finding_replay(const struct mg_case *c, const struct mg_verdict *v, char *out, size_t size);

#endif
