/* scripts/repro --emit-c: a standalone C program that reproduces one case
 * without memgate, to attach to a bug report. */
#ifndef MG_EMIT_C_H
#define MG_EMIT_C_H

#include "case.h"
#include "verdict.h"

/* Writes the program for case `c` (whose verdict was `v`) to `path`; exits 2
 * with a message if the file cannot be written. */
void mg_emit_c(const char *path, const struct mg_case *c, const struct mg_verdict *v);

#endif
