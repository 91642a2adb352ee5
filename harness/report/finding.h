/* A finding of a fuzz target or a replay: the case, its verdict, the input
 * that produced it, and the commands that replay it. */
#ifndef MG_FINDING_H
#define MG_FINDING_H

#include "case.h"
#include "decode.h"
#include "verdict.h"

#include <stdint.h>
#include <stdio.h>

/* The verdict, the case in words, the signature and the replay command. */
void mg_finding_print(FILE *out, const struct mg_target *t, const struct mg_case *c,
		      const struct mg_verdict *v);

/* Writes DIR/<variant>-<class>-<hash>.in (the input), .json (its finding
 * record, stage "fuzz") and .txt (what mg_finding_print says), in that
 * order. Returns 1, or 0 after a write failed (said on stderr; the files
 * after it are not written). Does nothing (1) if `dir` is NULL or empty. */
int mg_finding_save(const char *dir, const struct mg_target *t, const struct mg_case *c,
		    const struct mg_verdict *v, const uint8_t *data, size_t size);
/* The same for any stage ("fuzz", "random"); also says where the input went
 * (`input`, when not NULL). */
int mg_finding_save_as(const char *dir, const char *stage, const struct mg_target *t,
		       const struct mg_case *c, const struct mg_verdict *v, const uint8_t *data,
		       size_t size, char *input, size_t input_size);

/* mkdir -p `dir`, then proof that a file can be made in it (one is made and
 * removed): a finding that cannot be saved is found before the run, not
 * after it. Returns 0 with why ("cannot write findings in DIR: REASON"). */
int mg_findings_dir_ready(const char *dir, char *why, size_t size);

#endif
