/* memgate encode: writes the fuzz input for one case, given as `memgate run`
 * takes it. Seeds and regression inputs are made this way, and any finding
 * of the sweep can become a regression input. */
#include "decode.h"
#include "options.h"
#include "record.h"
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
	"usage: memgate encode --output=FILE --variant=NAME --len=N [--selector=N]\n"
	"                      [memgate run's case flags]\n"
	"Writes the fuzz input that decodes to this case on the variant's target,\n"
	"pinned to the variant (as corpus/regressions/TARGET/VARIANT/ pins it).\n"
	"--output=- writes to stdout. --selector=N (0-255) sets the byte with which\n"
	"an unpinned target picks its variant (scripts/seed-corpus spreads seeds\n"
	"over a family that way). Exit status: 0 written, 2 bad usage.\n";

/* The value of --selector=N: 0 to 255 in digits, or a usage error. */
static int parse_selector(const char *text)
{
	uint64_t n = mg_parse_u64("encode", "selector", text);

	if (n > 255)
		mg_usage_error("encode", "bad value '%s' for --selector (want 0 to 255)", text);
	return (int)n;
}

/* Takes --output=FILE and --selector=N out of argv, each at most once;
 * the rest are case flags (or --help). */
static const char *take_output(int *argc, char **argv, int *selector)
{
	const char *output = NULL;
	int kept = 1;

	for (int i = 1; i < *argc; i++) {
		if (strncmp(argv[i], "--output=", 9) == 0) {
			if (output)
				mg_usage_error("encode", "--output given twice: give it once");
			output = argv[i] + 9;
			if (!*output)
				mg_usage_error("encode", "--output= names no file");
		} else if (strncmp(argv[i], "--selector=", 11) == 0) {
			if (*selector >= 0)
				mg_usage_error("encode", "--selector given twice: give it once");
			*selector = parse_selector(argv[i] + 11);
		} else {
			argv[kept++] = argv[i];
		}
	}
	*argc = kept;
	argv[kept] = NULL;
	return output;
}

/* A file is replaced only by a complete new one: written under a
 * temporary name, then renamed. */
static void write_input(const char *path, const uint8_t *data, size_t size)
{
	char tmp[4200];
	FILE *f;

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, size, stdout) != size || fflush(stdout) != 0)
			mg_usage_error("encode", "cannot write to stdout: %s", strerror(errno));
		return;
	}
	snprintf(tmp, sizeof tmp, "%s.partial-%ld", path, (long)getpid());
	f = fopen(tmp, "wbx");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0 || rename(tmp, path) != 0) {
		int err = errno;
		unlink(tmp);
		mg_usage_error("encode", "cannot write %s: %s", path, strerror(err));
	}
}

/* What the decoder cannot express: lengths past what replay and the fuzz
 * targets decode unfolded (MG_DEFAULT_MAX_LEN; a longer one would replay as
 * another case), far overlap distances. */
static void check_encodable(const struct mg_case *c)
{
	char why[256];

	if (!mg_case_valid(c, why, sizeof why))
		mg_usage_error("encode", "invalid case for %s: %s", c->variant->name, why);
	if (mg_case_is_huge(c) || c->len > MG_DEFAULT_MAX_LEN)
		mg_usage_error("encode",
			       "fuzz inputs go up to %zu bytes (replay folds longer ones); length %zu "
			       "is for memgate run",
			       (size_t)MG_DEFAULT_MAX_LEN, c->len);
	if (c->overlap && (size_t)labs(c->dist) > c->len + MG_ALIGN_MOD)
		mg_usage_error("encode", "--overlap=%ld: fuzz inputs reach at most len + %u",
			       c->dist, MG_ALIGN_MOD);
}

int mg_cmd_encode(int argc, char **argv)
{
	int selector = -1;
	const char *output = take_output(&argc, argv, &selector);
	struct mg_case c = {0}, back;
	struct mg_target t;
	uint8_t input[MG_INPUT_MAX_BYTES];
	char why[256];

	if (!mg_parse_case_flags(argc, argv, "encode", &c)) {
		fputs(help, stdout);
		return 0;
	}
	if (!output)
		mg_usage_error("encode", "--output=FILE is required (see memgate encode --help)");
	if (mg_format != MG_FORMAT_TEXT)
		mg_usage_error("encode", "--format is for the commands that judge, not encode");
	check_encodable(&c);
	if (!mg_target_init(&t, mg_family_of(c.variant->op), c.variant->name, why, sizeof why))
		mg_usage_error("encode", "%s", why);
	/* Decoded as replay, repro and the fuzz targets decode it by default:
	 * an input that replays another case must not be written. */
	mg_encode(&t, &c, input);
	if (selector >= 0)
		mg_encode_selector(&c, (unsigned)selector, input);
	mg_decode(&t, input, mg_input_size(&c), &back);
	if (!mg_case_equal(&c, &back)) {
		char got[256];
		mg_case_describe(&back, got, sizeof got);
		mg_usage_error("encode", "a fuzz input cannot express this case exactly (it would "
					 "replay as %s); it is for memgate run",
			       got);
	}
	write_input(output, input, mg_input_size(&c));
	return 0;
}
