/* The differential checker: runs one case in the sandbox and classifies it. */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include "case.h"
#include "verdict.h"

/* Base per-call time limit; longer lengths get 1 ms more per 4 KiB. */
extern unsigned mg_check_timeout_ms;

/* Runs a valid case (see mg_case_valid) and fills in its verdict. */
void mg_check(const struct mg_case *c, struct mg_verdict *out);

#endif
