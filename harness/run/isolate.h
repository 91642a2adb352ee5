/* Surviving a variant that kills its whole process (abort, exit, a corrupted
 * harness): the work runs in a child, and its death becomes a finding, or,
 * when the harness itself failed, an error (could not judge). */
#ifndef MG_ISOLATE_H
#define MG_ISOLATE_H

#include "case.h"
#include "verdict.h"

/* Runs mg_check on `c` in a child process. The verdict is MG_ERROR when the
 * harness could not run the child or the child failed outside the call. */
void mg_check_isolated(const struct mg_case *c, struct mg_verdict *out);

/* The verdict for a case whose process ended (wait status `status`) before
 * it reported one; `in_call` says whether the variant was running then
 * (mg_call_watch). Ending during the call is the variant's crash; a kill
 * from outside or a harness exit outside the call is MG_ERROR. */
void mg_verdict_ended(struct mg_verdict *out, int status, int in_call);

/* A parent gives a child's call this much CPU time past its limit (the
 * case's, below) before it takes it for one that its watchdog's signal
 * cannot stop (a routine that broke the signal path: gs borrowed, every
 * signal blocked) and kills the child: a timeout finding, never a hung run. */
#define MG_UNSTOPPED_SPARE_MS 5000u

/* One call's time limit in the case `c` (mg_call_begin's), in ms of CPU. */
unsigned mg_case_call_limit_ms(const struct mg_case *c);

/* The verdict for a call that its watchdog's signal could not stop, whose
 * process was killed after `ms` of CPU time. */
void mg_verdict_unstopped(struct mg_verdict *out, unsigned ms);

/* A crash: the variant ended the process during the call with
 * `exit_status` (-1: not known, as when a later process finds out). */
void mg_verdict_never_returned(struct mg_verdict *out, int exit_status);

#endif
