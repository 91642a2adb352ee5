/* memgate verify: the main job. */
#include "check.h"
#include "huge.h"
#include "options.h"
#include "table.h"
#include "memcheck.h"
#include "record.h"
#include "verify.h"
#include "stop.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
	"usage: memgate verify [OPTIONS]\n"
	"  --profile=smoke|quick|full  how much to sweep (default quick; smoke:\n"
	"                        every length, a tenth to a twentieth of quick)\n"
	"  --sweep-seconds=S     each variant's sweep within about S seconds (1 to\n"
	"                        86400): every length, and as many of the other\n"
	"                        cases as fit (default: no budget, the whole profile)\n"
	"  --sweep-floor=P       with --sweep-seconds: at least P% of the cases (1 to\n"
	"                        100), past the budget if need be (default: none)\n"
	"  --seed=N              fill seed of the whole sweep (default 1)\n"
	"  --thresholds=N,...    lengths the routines compare with (the values they\n"
	"                        read): each swept around, from 1 KiB to 16 MiB\n"
	"  --variant=A,B,...     only these variants\n"
	"  --set=main|selftest|all  which table (default main; selftest: tests/bad)\n"
	"  --op=OP,...           only the variants of these operations (memcpy,\n"
	"                        mempcpy, memmove, memset, copy_page, clear_page,\n"
	"                        copy_from_user, copy_to_user, clear_user)\n"
	"  --jobs=N              variants swept at once (default: the CPU count)\n"
	"  --max-failures=N      stop a variant's sweep after N failing cases (default 3)\n"
	"  --max-len=N           only the sweep's, the placements' and the situations'\n"
	"                        cases of at most N bytes (default: every length; the\n"
	"                        4 GiB+ check is --huge's)\n"
	"  --hide-feature=LIST   act as if the CPU lacked these features\n"
	"  --timeout-ms=N        per-call watchdog, plus 1 ms per 4 KiB (default 1000,\n"
	"                        at least 1)\n"
	"  --overread=classify|strict  under memcheck: an over-read within an aligned\n"
	"                        block holding a buffer byte is a warning (classify,\n"
	"                        the default) or a failure (strict)\n"
	"  --findings=DIR        where findings are appended, after those of earlier\n"
	"                        runs (default findings/verify)\n"
	"  --expect=pass|CLASS,...  override the table: the variants must pass, or\n"
	"                        fail with only these classes\n"
	"  --huge=on|off|oracle  the check at lengths of 2 GiB and more (default on;\n"
	"                        oracle: only the cases that fault after 64 KiB)\n"
	"  --platform-register=auto|reserved|free  aarch64: whether x18 must be\n"
	"                        preserved (auto: only by kernel-style variants)\n"
	"  --format=text|jsonl   what stdout says: the table, or the records of\n"
	"                        docs/records.md (variant, finding, error, summary)\n"
	"Exit status: 0 every variant did what the table expects, 1 some did not,\n"
	"2 bad usage or something could not be judged; 130, 143, 129 stopped by\n"
	"SIGINT, SIGTERM, SIGHUP (the findings so far saved, marked partial).\n";

enum {
	O_PROFILE = 1,
	O_SWEEP_SECONDS,
	O_SWEEP_FLOOR,
	O_THRESHOLDS,
	O_SEED,
	O_VARIANT,
	O_SET,
	O_OP,
	O_JOBS,
	O_MAX,
	O_MAX_LEN,
	O_HIDE,
	O_TIMEOUT,
	O_DIR,
	O_EXPECT,
	O_HUGE,
	O_PLATFORM,
	O_FORMAT,
	O_OVERREAD,
	O_HELP
};

static const struct option opts[] = {
	{"profile", required_argument, NULL, O_PROFILE},
	{"sweep-seconds", required_argument, NULL, O_SWEEP_SECONDS},
	{"sweep-floor", required_argument, NULL, O_SWEEP_FLOOR},
	{"thresholds", required_argument, NULL, O_THRESHOLDS},
	{"seed", required_argument, NULL, O_SEED},
	{"variant", required_argument, NULL, O_VARIANT},
	{"set", required_argument, NULL, O_SET},
	{"op", required_argument, NULL, O_OP},
	{"jobs", required_argument, NULL, O_JOBS},
	{"max-failures", required_argument, NULL, O_MAX},
	{"max-len", required_argument, NULL, O_MAX_LEN},
	{"hide-feature", required_argument, NULL, O_HIDE},
	{"timeout-ms", required_argument, NULL, O_TIMEOUT},
	{"overread", required_argument, NULL, O_OVERREAD},
	{"findings", required_argument, NULL, O_DIR},
	{"expect", required_argument, NULL, O_EXPECT},
	{"huge", required_argument, NULL, O_HUGE},
	{"platform-register", required_argument, NULL, O_PLATFORM},
	{"format", required_argument, NULL, O_FORMAT},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

/* --max-len=N: a whole number of bytes, at least 1 (a sweep of nothing but
 * zero-length cases is not one anybody asks for). */
static size_t parse_max_len(const char *text)
{
	uint64_t n = mg_parse_u64("verify", "max-len", text);

	if (n == 0 || n > SIZE_MAX)
		mg_usage_error("verify", "--max-len must be at least 1 (bytes), got '%s'", text);
	return (size_t)n;
}

static int parse_huge(const char *text)
{
	if (strcmp(text, "on") == 0)
		return MG_HUGE_ALL;
	if (strcmp(text, "off") == 0)
		return MG_HUGE_OFF;
	if (strcmp(text, "oracle") == 0)
		return MG_HUGE_ORACLE_ONLY;
	mg_usage_error("verify", "bad value '%s' for --huge (valid: on, off, oracle)", text);
}

static unsigned parse_ops(const char *list)
{
	unsigned mask = 0;
	char name[32];

	if (!*list)
		mg_usage_error("verify", "--op= names no operation");
	while (*list) {
		size_t len = strcspn(list, ",");
		enum mg_op op = 0;

		snprintf(name, sizeof name, "%.*s", (int)len, list);
		while (op < MG_OP_COUNT && strcmp(mg_op_name(op), name) != 0)
			op++;
		if (op == MG_OP_COUNT)
			mg_usage_error("verify",
				       "unknown operation '%s' for --op (valid: memcpy, mempcpy, "
				       "memmove, memset, copy_page, clear_page)",
				       name);
		mask |= 1u << op;
		list += len + (list[len] == ',');
	}
	return mask;
}

/* --op keeps the selected variants of these operations only: make verify
 * runs aarch64's further CPU models on the routines that read CPU
 * parameters (DC ZVA block, cache line), not on every copy. */
static const struct mg_variant *const *keep_ops(const struct mg_variant *const *all, size_t *n,
						unsigned ops)
{
	const struct mg_variant **kept = calloc(*n + 1, sizeof *kept);
	size_t k = 0;

	if (!kept)
		mg_usage_error("verify", "out of memory");
	for (size_t i = 0; i < *n; i++)
		if (ops & (1u << all[i]->op))
			kept[k++] = all[i];
	if (k == 0)
		mg_usage_error("verify", "--op leaves no variant to verify");
	*n = k;
	return kept;
}

static unsigned parse_expect(const char *list)
{
	unsigned mask = 0;
	char name[64];

	if (strcmp(list, "pass") == 0)
		return 0;
	if (!*list)
		mg_usage_error("verify", "--expect= names nothing (want pass, or the classes the "
			       "variants must fail with)");
	while (*list) {
		size_t len = strcspn(list, ",");
		snprintf(name, sizeof name, "%.*s", (int)len, list);
		enum mg_class c = mg_class_parse(name);
		if (c == MG_CLASS_COUNT || c == MG_OK || c == MG_ERROR)
			mg_usage_error(
				"verify",
				"unknown class '%s' for --expect (valid: pass, wrong-result, "
				"out-of-bounds-read, out-of-bounds-write, src-modified, "
				"wrong-return, crash, timeout)",
				name);
		mask |= MG_CLASS_BIT(c);
		list += len + (list[len] == ',');
	}
	return mask;
}

int mg_cmd_verify(int argc, char **argv)
{
	struct mg_verify_opts o = {.profile = MG_PROFILE_QUICK,
				   .seed = 1,
				   .max_failures = 3,
				   .huge = MG_HUGE_ALL,
				   .findings_dir = "findings/verify"};
	const char *set = NULL, *names = NULL;
	unsigned ops = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	o.jobs = cpus > 0 ? (unsigned)cpus : 1;
	mg_stop_install("memgate verify", 0);
	while ((c = mg_getopt(argc, argv, "verify", opts)) != -1) {
		switch (c) {
		case O_PROFILE:
			if (!mg_profile_parse(optarg, &o.profile))
				mg_usage_error("verify",
					       "unknown profile '%s' (valid: smoke, quick, full)", optarg);
			break;
		case O_SEED: o.seed = mg_parse_seed("verify", "seed", optarg); break;
		case O_VARIANT: names = optarg; break;
		case O_SET: set = optarg; break;
		case O_OP: ops = parse_ops(optarg); break;
		case O_JOBS: o.jobs = mg_parse_uint("verify", "jobs", optarg, UINT_MAX); break;
		case O_MAX:
			o.max_failures = mg_parse_uint("verify", "max-failures", optarg, UINT_MAX);
			break;
		case O_MAX_LEN: o.max_len = parse_max_len(optarg); break;
		case O_HIDE: mg_parse_hidden_features("verify", optarg); break;
		case O_OVERREAD: mg_parse_overread("verify", optarg); break;
		case O_TIMEOUT:
			mg_check_timeout_ms =
				mg_parse_positive("verify", "timeout-ms", optarg, MG_MAX_TIMEOUT_MS);
			break;
		case O_DIR:
			if (!*optarg)
				mg_usage_error("verify", "--findings= names no directory");
			o.findings_dir = optarg;
			break;
		case O_HUGE: o.huge = parse_huge(optarg); break;
		case O_SWEEP_SECONDS:
			o.sweep_seconds = (double)mg_parse_positive("verify", "sweep-seconds",
								     optarg, 86400);
			break;
		case O_SWEEP_FLOOR:
			o.sweep_floor =
				mg_parse_positive("verify", "sweep-floor", optarg, 100) / 100.0;
			break;
		case O_THRESHOLDS: mg_parse_thresholds("verify", optarg, &o.thresholds); break;
		case O_EXPECT:
			o.override_expect = 1;
			o.expect = parse_expect(optarg);
			break;
		case O_PLATFORM: mg_parse_platform_rule("verify", optarg); break;
		case O_FORMAT: mg_parse_format("verify", optarg); break;
		case O_HELP: fputs(help, stdout); return 0;
		}
	}
	mg_no_operands(argc, argv, "verify");
	if (o.jobs == 0 || o.max_failures == 0)
		mg_usage_error("verify", "--jobs and --max-failures must be at least 1");
	o.variants = mg_select_variants("verify", set, names, &o.count);
	if (ops)
		o.variants = keep_ops(o.variants, &o.count, ops);
	return mg_verify(&o);
}
