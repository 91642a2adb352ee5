/* The libFuzzer entry point every fuzz target shares: decode the input into
 * a case of the target's family, mark its coverage cell, check it, and
 * abort on a finding so the fuzzer saves the input.
 *
 * A target runs every correct variant of its family, or the one pinned with
 * --variant=NAME (libFuzzer passes flags starting with "--" on untouched) or
 * MEMGATE_VARIANT=NAME. --max-len=N or MEMGATE_MAX_LEN folds lengths below
 * N. MEMGATE_FINDINGS=DIR saves each finding there before aborting. */
#include "cells.h"
#include "check.h"
#include "decode.h"
#include "finding.h"
#include "table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each target file defines its family: "memcpy", "memmove", ... */
extern const char mg_fuzz_family[];

static struct mg_target target;

static const char *flag_value(int argc, char **argv, const char *flag)
{
	size_t n = strlen(flag);

	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], flag, n) == 0 && argv[i][n] == '=')
			return argv[i] + n + 1;
	return NULL;
}

static const char *setting(int argc, char **argv, const char *flag, const char *env)
{
	const char *value = flag_value(argc, argv, flag);
	return value ? value : getenv(env);
}

static size_t parse_max_len(const char *text)
{
	char *end;
	unsigned long long n = strtoull(text, &end, 0);

	if (*end || n == 0 || n > MG_MAX_LEN) {
		fprintf(stderr, "memgate fuzz_%s: max-len '%s' is not a number in 1..%zu\n",
			mg_fuzz_family, text, (size_t)MG_MAX_LEN);
		exit(2);
	}
	return (size_t)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *pinned = setting(*argc, *argv, "--variant", "MEMGATE_VARIANT");
	const char *max_len = setting(*argc, *argv, "--max-len", "MEMGATE_MAX_LEN");
	char why[256];

	if (!mg_target_init(&target, mg_fuzz_family, pinned, why, sizeof why)) {
		fprintf(stderr, "memgate fuzz_%s: %s\n", mg_fuzz_family, why);
		exit(2);
	}
	if (max_len)
		target.max_len = parse_max_len(max_len);
	mg_program = "build/memgate";
	/* Before AFL++'s fork server starts: its children inherit the sandbox
	 * instead of each building one. */
	mg_check_init();
	return 0;
}

/* AFL++'s libFuzzer driver runs this 4-byte input once in every process
 * before the real ones, to warm up. It is not a fuzz input; a pinned
 * variant that failed on it would make every run look like a crash. */
static int is_afl_warm_up(const uint8_t *data, size_t size)
{
	static int calls;

	return calls++ == 0 && size == 4 && memcmp(data, "##SI", 4) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mg_case c;
	struct mg_verdict v;

	if (is_afl_warm_up(data, size))
		return 0;
	mg_decode(&target, data, size, &c);
	mg_cells_mark(&target, &c);
	mg_check(&c, &v);
	if (v.cls == MG_OK)
		return 0;
	mg_finding_save(getenv("MEMGATE_FINDINGS"), &target, &c, &v, data, size);
	mg_finding_print(stderr, &target, &c, &v);
	abort();
}
