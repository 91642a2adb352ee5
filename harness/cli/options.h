/* Command-line helpers: every bad flag or value is named in one line and
 * exits with status 2. */
#ifndef MG_OPTIONS_H
#define MG_OPTIONS_H

#include "sweep.h"
#include "variant.h"

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MG_EXIT_USAGE 2

/* Runs getopt_long; on an unknown option, a missing value or a value an
 * option does not take, prints "memgate CMD: unknown option 'X' (valid:
 * ...)" (or "option needs a value:", "option takes no value:") and exits 2;
 * an option given twice is exit 2 too, naming both values. */
int mg_getopt(int argc, char **argv, const char *cmd, const struct option *opts);

/* Exits 2 naming the flag when `text` is not a whole number in decimal
 * digits (i64: with a leading - for a negative one). */
uint64_t mg_parse_u64(const char *cmd, const char *flag, const char *text);
int64_t mg_parse_i64(const char *cmd, const char *flag, const char *text);
/* A seed: decimal digits, or 0x and hex digits (as replay lines print it). */
uint64_t mg_parse_seed(const char *cmd, const char *flag, const char *text);
/* The same for a value that must be at most `max`: a larger one is exit 2
 * naming the range, never cut to fit an unsigned. */
unsigned mg_parse_uint(const char *cmd, const char *flag, const char *text, unsigned max);
/* A budget, a timeout or a count that must be at least 1 (0 would mean "check
 * nothing", or an instant timeout): 1..max, or exit 2 naming the range. */
unsigned mg_parse_positive(const char *cmd, const char *flag, const char *text, unsigned max);

/* The largest --timeout-ms: a day, so that the per-length additions of
 * mg_timeout_for cannot wrap. */
#define MG_MAX_TIMEOUT_MS 86400000u

/* --max-len of the fuzz-input tools: a length in 1..MG_MAX_LEN, or exit 2. */
size_t mg_parse_max_len(const char *cmd, const char *text);

/* --thresholds=N,...: whole numbers, at most MG_MAX_THRESHOLDS of them
 * (sweep.h), into `out`; anything else is exit 2 naming it. */
void mg_parse_thresholds(const char *cmd, const char *list, struct mg_thresholds *out);

/* Exits 2 when `name` is not a variant, listing the valid ones. */
const struct mg_variant *mg_parse_variant(const char *cmd, const char *name);

/* Writes `text` with each byte that is not printable UTF-8 (a control
 * character, a byte of no valid sequence) as \xNN: a name from the command
 * line is shown as it was typed, and cannot garble the terminal. */
void mg_print_shown(FILE *out, const char *text);
size_t mg_utf8_char(const unsigned char *p);

/* Exits 2 after one line "memgate CMD: <message>" (shown by mg_print_shown). */
__attribute__((noreturn, format(printf, 2, 3))) void mg_usage_error(const char *cmd,
								    const char *format, ...);

/* Exits 2 if arguments are left after the options. */
void mg_no_operands(int argc, char **argv, const char *cmd);

/* The variants a command works on: a set ("main", "selftest" or "all";
 * NULL: main, or with names any table) narrowed to a comma-separated list
 * of names when `names` is not NULL. Exits 2 naming a bad set, a bad
 * variant, or a named variant outside the set given. The array lives until
 * exit. */
const struct mg_variant *const *mg_select_variants(const char *cmd, const char *set,
						   const char *names, size_t *count);

/* Sets mg_platform_rule from "auto", "reserved" or "free", or exits 2. */
void mg_parse_platform_rule(const char *cmd, const char *text);

/* Hides a comma-separated list of CPU features, or exits 2 naming a bad one. */
void mg_parse_hidden_features(const char *cmd, const char *list);

/* Sets mg_format (record.h) from --format's value ("text", "jsonl") or
 * exits 2. */
void mg_parse_format(const char *cmd, const char *text);
/* Parses --overread=classify|strict for `cmd` into mg_overread_strict
 * (memcheck.h); exit 2 on anything else. */
void mg_parse_overread(const char *cmd, const char *text);

struct mg_case;
/* Parses `memgate run`'s case flags (--variant, --len, --src-align, ...)
 * into *c, naming any error as "memgate CMD: ..." with exit 2. Returns 0
 * after printing --help. */
int mg_parse_case_flags(int argc, char **argv, const char *cmd, struct mg_case *c);
#endif
