/* The differential checker: runs one case in the sandbox and classifies it. */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include "case.h"
#include "outcome.h"
#include "verdict.h"

/* Runs a valid case (see mg_case_valid) and fills in its verdict. */
void mg_check(const struct mg_case *c, struct mg_verdict *out);

#endif
