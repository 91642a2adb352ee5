/* The differential checker: runs one case in the sandbox and classifies it. */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include "case.h"
#include "outcome.h"
#include "sandbox.h"
#include "verdict.h"

/* Runs a valid case (see mg_case_valid) and fills in its verdict. */
void mg_check(const struct mg_case *c, struct mg_verdict *out);

/* Sets the engine up (handlers, watchdog, sandbox) ahead of the first case,
 * so that children forked for isolated cases inherit it instead of each
 * building its own. */
void mg_check_init(void);

/* Places and fills a valid sandbox case's buffers exactly as mg_check does,
 * without calling anything: for tools that show or export those bytes. */
void mg_check_layout(const struct mg_case *c, struct mg_layout *out);

#endif
