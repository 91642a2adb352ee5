/* The records of docs/records.md: what `run`, `verify`, `replay`, `random`
 * and the fuzz targets' finding files say, as data (--format=jsonl). */
#ifndef MG_RECORD_H
#define MG_RECORD_H

#include "case.h"
#include "json.h"
#include "verdict.h"

#include <stdio.h>

/* The exit status of a command that could not judge what it was asked to
 * (the same as bad usage's: the caller learns nothing about the routine). */
#define MG_EXIT_NOT_JUDGED 2

enum mg_format { MG_FORMAT_TEXT, MG_FORMAT_JSONL };

/* What stdout carries: the human text (default) or the records. */
extern enum mg_format mg_format;

/* The case as a JSON object member. */
void mg_json_case(struct mg_json *j, const char *key, const struct mg_case *c);
/* "warnings": [{"name", "text"}...]; an aligned-over-read's also has its
 * buffer, side, distance and width (`overread`, read only for that bit). */
void mg_json_warnings(struct mg_json *j, unsigned bits, const struct mg_overread *overread);
/* "not_judged": the parts in `bits` (enum mg_unjudged), each with the cases
 * it was left out of when `cases` is given (indexed by bit). */
void mg_json_unjudged(struct mg_json *j, unsigned bits, const unsigned long long *cases);

/* A finding record: case c broke a rule (v), found by `stage`; `input` is
 * the saved input that replays it, or NULL. Writes one line to `out`;
 * returns 0 if that failed (said on stderr). */
void mg_record_finding_build(struct mg_json *j, const struct mg_case *c, const struct mg_verdict *v,
			     const char *stage, const char *input);
int mg_record_finding(FILE *out, const struct mg_case *c, const struct mg_verdict *v,
		      const char *stage, const char *input);

/* A case record (`input` may be NULL), then, for a failure, its finding. */
int mg_record_case(FILE *out, const struct mg_case *c, const struct mg_verdict *v,
		   const char *stage, const char *input, int as_expected);

/* An error record: the harness could not judge. */
int mg_record_error(FILE *out, const char *stage, const char *variant, const char *reason);

/* A stop signal ended the run (stop.h): with --format=jsonl an error record
 * "interrupted by SIGTERM" on stdout (and no summary: the output is not
 * complete), then the "WHO: interrupted by SIGTERM[; WHERE]" line on stderr.
 * Returns the exit status, 128 + the signal's number. */
int mg_interrupted(const char *stage, const char *variant, const char *where);

struct mg_summary {
	const char *command;
	unsigned long long cases, passed, failed, errors, skipped;
};

/* Whether everything written to stdout so far got out (a full disk, a
 * closed pipe): output that did not is a result nobody read. */
int mg_stdout_ok(void);

/* The summary record, the last line of a complete output. */
int mg_record_summary(FILE *out, const struct mg_summary *s);

#endif
