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

void mg_print_shown(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		size_t n = mg_utf8_char(p);
		if (n)
			fwrite(p, 1, n, out);
		else
			fprintf(out, "\\x%02x", *p);
		p += n ? n : 1;
	}
}

/* The length of the valid UTF-8 character (not a control character) at p,
 * or 0. */
size_t mg_utf8_char(const unsigned char *p)
{
	size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
	       : (*p & 0xf8) == 0xf0 ? 4 : 0;

	if (n == 1)
		return *p >= 0x20 && *p != 0x7f;
	if (n == 0 || (n == 2 && *p < 0xc2) || (n == 4 && *p > 0xf4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void mg_usage_error(const char *cmd, const char *format, ...)
{
	char text[4096];
	va_list args;

	va_start(args, format);
	vsnprintf(text, sizeof text, format, args);
	va_end(args);
	fprintf(stderr, "memgate %s: ", cmd);
	mg_print_shown(stderr, text);
	fputc('\n', stderr);
	exit(MG_EXIT_USAGE);
}

static void print_valid(const struct option *opts)
{
	for (size_t i = 0; opts[i].name; i++)
		fprintf(stderr, "%s--%s", i ? ", " : "", opts[i].name);
}

/* The option getopt could not take: unknown, lacking its value, or given
 * one it does not take. */
static void bad_option(char **argv, const char *cmd, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	const char *what = "unknown option";

	if (optopt && strchr(arg, '='))
		what = "option takes no value:";
	else if (optopt)
		what = "option needs a value:";
	fprintf(stderr, "memgate %s: %s '", cmd, what);
	mg_print_shown(stderr, arg);
	fprintf(stderr, "' (valid: ");
	print_valid(opts);
	fprintf(stderr, ")\n");
	exit(MG_EXIT_USAGE);
}

/* Each option once: a second one would silently win over the first. */
static void refuse_repeats(const char *cmd, const struct option *opts, int index)
{
	static const struct option *seen_for;
	static const char *seen[64];
	static int given[64];

	if (seen_for != opts) {
		seen_for = opts;
		memset(given, 0, sizeof given);
	}
	if (index < 0 || index >= 64)
		return;
	if (given[index]) {
		if (seen[index])
			mg_usage_error(cmd, "--%s given twice ('%s', then '%s'): give it once",
				       opts[index].name, seen[index], optarg ? optarg : "");
		mg_usage_error(cmd, "--%s given twice: give it once", opts[index].name);
	}
	given[index] = 1;
	seen[index] = optarg;
}

int mg_getopt(int argc, char **argv, const char *cmd, const struct option *opts)
{
	int c, index = -1;

	opterr = 0;
	optopt = 0;
	c = getopt_long(argc, argv, "", opts, &index);
	if (c == '?')
		bad_option(argv, cmd, opts);
	if (c != -1)
		refuse_repeats(cmd, opts, index);
	return c;
}

/* Only digits: strtoull would also take blanks, a sign ("-1" is
 * UINT64_MAX), a 0x prefix and octal ("010" is 8). */
static int all_digits(const char *text)
{
	if (!*text)
		return 0;
	for (; *text; text++)
		if (!isdigit((unsigned char)*text))
			return 0;
	return 1;
}

static uint64_t parse_u64(const char *cmd, const char *flag, const char *text, int base,
			  const char *want)
{
	unsigned long long v;

	errno = 0;
	v = strtoull(text, NULL, base);
	if (errno == ERANGE)
		mg_usage_error(cmd, "--%s=%s is out of range (at most %llu)", flag, text,
			       (unsigned long long)UINT64_MAX);
	if (errno)
		mg_usage_error(cmd, "bad value '%s' for --%s (%s)", text, flag, want);
	return v;
}

uint64_t mg_parse_u64(const char *cmd, const char *flag, const char *text)
{
	const char *want = "want a whole number, digits only";

	if (!all_digits(text))
		mg_usage_error(cmd, "bad value '%s' for --%s (%s)", text, flag, want);
	return parse_u64(cmd, flag, text, 10, want);
}

uint64_t mg_parse_seed(const char *cmd, const char *flag, const char *text)
{
	const char *want = "want a whole number: digits, or 0x and hex digits";

	if (strncmp(text, "0x", 2) == 0 || strncmp(text, "0X", 2) == 0) {
		if (!text[2] || strspn(text + 2, "0123456789abcdefABCDEF") != strlen(text + 2))
			mg_usage_error(cmd, "bad value '%s' for --%s (%s)", text, flag, want);
		return parse_u64(cmd, flag, text + 2, 16, want);
	}
	if (!all_digits(text))
		mg_usage_error(cmd, "bad value '%s' for --%s (%s)", text, flag, want);
	return parse_u64(cmd, flag, text, 10, want);
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
	const char *digits = text + (text[0] == '-');
	int hex = strncmp(digits, "0x", 2) == 0 || strncmp(digits, "0X", 2) == 0;
	const char *allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
	const char *rest = digits + (hex ? 2 : 0);
	long long v;

	errno = 0;
	v = strtoll(text, NULL, hex ? 16 : 10);
	if (!*rest || strspn(rest, allowed) != strlen(rest) || errno)
		mg_usage_error(cmd, "bad value '%s' for --%s (want a whole number: digits, or 0x "
			       "and hex digits, with - before them for a negative one)", text, flag);
	return v;
}

const struct mg_variant *mg_parse_variant(const char *cmd, const char *name)
{
	const struct mg_variant *v = mg_variant_find(name);

	if (v)
		return v;
	fprintf(stderr, "memgate %s: unknown variant '", cmd);
	mg_print_shown(stderr, name);
	fprintf(stderr, "' (");
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

static const struct mg_table *set_table(const char *cmd, const char *set)
{
	if (strcmp(set, "main") == 0)
		return &mg_main_table;
	if (strcmp(set, "selftest") == 0)
		return &mg_selftest_table;
	if (strcmp(set, "all") != 0)
		mg_usage_error(cmd, "unknown set '%s' (valid: main, selftest, all)", set);
	return NULL;
}

static int in_table(const struct mg_table *t, const struct mg_variant *v)
{
	return v >= t->variants && v < t->variants + t->count;
}

const struct mg_variant *const *mg_select_variants(const char *cmd, const char *set,
						   const char *names, size_t *count)
{
	size_t cap = mg_main_table.count + mg_selftest_table.count + 1;
	const struct mg_table *table = set ? set_table(cmd, set) : &mg_main_table;
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
		/* A set given with names narrows them: a name outside it is a
		 * typo's sign, not a wish to run it anyway. */
		for (size_t i = 0; set && table && i < n; i++)
			if (!in_table(table, out[i]))
				mg_usage_error(cmd, "variant '%s' is not in --set=%s", out[i]->name,
					       set);
	} else if (!table) {
		add_table(&mg_main_table, out, &n);
		add_table(&mg_selftest_table, out, &n);
	} else {
		add_table(table, out, &n);
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
			       "avx512bw, erms, fsrm, fsrs, ...)",
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

void mg_parse_thresholds(const char *cmd, const char *list, struct mg_thresholds *out)
{
	char one[32];

	if (!*list)
		mg_usage_error(cmd, "--thresholds= names no length");
	while (*list) {
		size_t len = strcspn(list, ",");
		if (out->n == MG_MAX_THRESHOLDS)
			mg_usage_error(cmd, "--thresholds names more than %d lengths",
				       MG_MAX_THRESHOLDS);
		if (len == 0 || len >= sizeof one)
			mg_usage_error(cmd, "--thresholds '%s': want whole numbers, comma-separated",
				       list);
		snprintf(one, sizeof one, "%.*s", (int)len, list);
		uint64_t t = mg_parse_u64(cmd, "thresholds", one);
		out->at[out->n++] = t > SIZE_MAX ? SIZE_MAX : (size_t)t;
		list += len + (list[len] == ',');
	}
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
