/* Surviving a variant that kills its whole process (abort, exit, a corrupted
 * harness): the work runs in a child, and its death becomes a finding. */
#ifndef MG_ISOLATE_H
#define MG_ISOLATE_H

#include "case.h"
#include "verdict.h"

/* Runs mg_check on `c` in a child process. */
void mg_check_isolated(const struct mg_case *c, struct mg_verdict *out);

/* The verdict for a case whose process died of `signo`. */
void mg_verdict_died(struct mg_verdict *out, int signo);

#endif
