/* A finding of a fuzz target or a replay: the case, its verdict, the input
 * that produced it, and the commands that replay it. */
#ifndef MG_FINDING_H
#define MG_FINDING_H

#include "case.h"
#include "decode.h"
#include "verdict.h"

#include <stdint.h>
#include <stdio.h>

/* "memcpy_x out-of-bounds-read dst past the end": what tells two findings
 * apart (variant, class, site), not how far or on which length. */
void mg_finding_signature(const struct mg_case *c, const struct mg_verdict *v, char *out,
			  size_t size);

/* The verdict, the case in words, the signature and the replay command. */
void mg_finding_print(FILE *out, const struct mg_target *t, const struct mg_case *c,
		      const struct mg_verdict *v);

/* Writes DIR/<variant>-<class>-<hash>.in (the input) and .txt (what
 * mg_finding_print says), with the input first. Does nothing if `dir` is
 * NULL or empty. Returns 0 after naming a write error on stderr. */
int mg_finding_save(const char *dir, const struct mg_target *t, const struct mg_case *c,
		    const struct mg_verdict *v, const uint8_t *data, size_t size);

#endif
