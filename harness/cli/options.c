#include "options.h"
#include "cpu.h"
#include "memcheck.h"
#include "outcome.h"
#include "record.h"
#include "table.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mg_usage_error(const char *cmd, const char *format, ...)
{
	va_list args;

	fprintf(stderr, "memgate %s: ", cmd);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	exit(MG_EXIT_USAGE);
}

static void print_valid(const struct option *opts)
{
	for (size_t i = 0; opts[i].name; i++)
		fprintf(stderr, "%s--%s", i ? ", " : "", opts[i].name);
}

int mg_getopt(int argc, char **argv, const char *cmd, const struct option *opts)
{
	int c;

	opterr = 0;
	optopt = 0;
	c = getopt_long(argc, argv, "", opts, NULL);
	if (c != '?')
		return c;
	/* getopt sets optopt only when a known option lacks its value. */
	fprintf(stderr, "memgate %s: %s '%s' (valid: ", cmd,
		optopt ? "option needs a value:" : "unknown option", argv[optind - 1]);
	print_valid(opts);
	fprintf(stderr, ")\n");
	exit(MG_EXIT_USAGE);
}

uint64_t mg_parse_u64(const char *cmd, const char *flag, const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 0);
	/* strtoull skips blanks and takes a sign ("-1" is UINT64_MAX): a
	 * number here starts with a digit. */
	if (end == text || *end || !isdigit((unsigned char)text[0]) || (errno && errno != ERANGE))
		mg_usage_error(cmd, "bad value '%s' for --%s (want a whole number, digits only)", text,
			       flag);
	if (errno == ERANGE)
		mg_usage_error(cmd, "--%s=%s is out of range (at most %llu)", flag, text,
			       (unsigned long long)UINT64_MAX);
	return v;
}

unsigned mg_parse_uint(const char *cmd, const char *flag, const char *text, unsigned max)
{
	uint64_t v = mg_parse_u64(cmd, flag, text);

	if (v > max)
		mg_usage_error(cmd, "--%s=%s is out of range (at most %u)", flag, text, max);
	return (unsigned)v;
}

unsigned mg_parse_positive(const char *cmd, const char *flag, const char *text, unsigned max)
{
	uint64_t v = mg_parse_u64(cmd, flag, text);

	if (v == 0 || v > max)
		mg_usage_error(cmd, "--%s=%s is out of range (want 1 to %u)", flag, text, max);
	return (unsigned)v;
}

int64_t mg_parse_i64(const char *cmd, const char *flag, const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 0);
	if (errno || end == text || *end)
		mg_usage_error(cmd, "bad value '%s' for --%s (want a number)", text, flag);
	return v;
}

const struct mg_variant *mg_parse_variant(const char *cmd, const char *name)
{
	const struct mg_variant *v = mg_variant_find(name);

	if (v)
		return v;
	fprintf(stderr, "memgate %s: unknown variant '%s' (", cmd, name);
	mg_variant_print_names(stderr);
	fprintf(stderr, ")\n");
	exit(MG_EXIT_USAGE);
}

void mg_no_operands(int argc, char **argv, const char *cmd)
{
	if (optind < argc)
		mg_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
}

static void add_table(const struct mg_table *t, const struct mg_variant **out, size_t *n)
{
	for (size_t i = 0; i < t->count; i++)
		out[(*n)++] = &t->variants[i];
}

static void add_named(const char *cmd, const char *names, const struct mg_variant **out, size_t *n)
{
	char name[128];

	while (*names) {
		size_t len = strcspn(names, ",");
		if (len >= sizeof name)
			mg_usage_error(cmd, "variant name too long: '%.*s'", (int)len, names);
		memcpy(name, names, len);
		name[len] = '\0';
		if (len)
			out[(*n)++] = mg_parse_variant(cmd, name);
		names += len + (names[len] == ',');
	}
}

const struct mg_variant *const *mg_select_variants(const char *cmd, const char *set,
						   const char *names, size_t *count)
{
	size_t cap = mg_main_table.count + mg_selftest_table.count + 1;
	const struct mg_variant **out;
	size_t n = 0;

	if (names)
		cap += strlen(names);
	out = calloc(cap, sizeof *out);
	if (!out)
		mg_usage_error(cmd, "out of memory");
	if (names) {
		add_named(cmd, names, out, &n);
		if (n == 0)
			mg_usage_error(cmd, "--variant='%s' names no variant", names);
	} else if (strcmp(set, "main") == 0 || strcmp(set, "all") == 0) {
		add_table(&mg_main_table, out, &n);
		if (strcmp(set, "all") == 0)
			add_table(&mg_selftest_table, out, &n);
	} else if (strcmp(set, "selftest") == 0) {
		add_table(&mg_selftest_table, out, &n);
	} else {
		mg_usage_error(cmd, "unknown set '%s' (valid: main, selftest, all)", set);
	}
	*count = n;
	return out;
}

void mg_parse_hidden_features(const char *cmd, const char *list)
{
	unsigned bits;
	const char *bad = NULL;

	if (!mg_feature_parse(list, &bits, &bad))
		mg_usage_error(cmd,
			       "unknown CPU feature '%.*s' (valid: sse2, avx, avx2, avx512f, "
			       "avx512bw, erms, fsrm)",
			       (int)strcspn(bad, ","), bad);
	mg_cpu_hide(bits);
}

void mg_parse_platform_rule(const char *cmd, const char *text)
{
	static const char *const names[] = {
		[MG_PLATFORM_AUTO] = "auto",
		[MG_PLATFORM_RESERVED] = "reserved",
		[MG_PLATFORM_FREE] = "free",
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i]) == 0) {
			mg_platform_rule = (enum mg_platform_rule)i;
			return;
		}
	mg_usage_error(cmd, "bad value '%s' for --platform-register (valid: auto, reserved, free)",
		       text);
}

size_t mg_parse_max_len(const char *cmd, const char *text)
{
	uint64_t n = mg_parse_u64(cmd, "max-len", text);

	if (n == 0 || n > MG_MAX_LEN)
		mg_usage_error(cmd, "--max-len must be in 1..%zu", (size_t)MG_MAX_LEN);
	return (size_t)n;
}

void mg_parse_format(const char *cmd, const char *text)
{
	if (strcmp(text, "text") == 0)
		mg_format = MG_FORMAT_TEXT;
	else if (strcmp(text, "jsonl") == 0)
		mg_format = MG_FORMAT_JSONL;
	else
		mg_usage_error(cmd, "unknown format '%s' (valid: text, jsonl)", text);
}

void mg_parse_overread(const char *cmd, const char *text)
{
	if (strcmp(text, "classify") && strcmp(text, "strict"))
		mg_usage_error(cmd, "--overread must be classify or strict, not '%s'", text);
	mg_overread_strict = strcmp(text, "strict") == 0;
}
