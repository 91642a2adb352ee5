/* The seeded random-case driver: fuzzing without a coverage-guided engine,
 * for architectures where libFuzzer and AFL++ do not run (aarch64 under
 * qemu-user). Case i of a run is the fuzz input made of 29 pseudo-random
 * bytes drawn from (seed, i), decoded by the same decoder as the fuzz
 * targets, so every finding is saved as an input that `replay` and
 * scripts/repro take as they take the fuzzers' findings.
 *
 * The cases run in a worker process. A variant that kills it (abort, a
 * corrupted harness) is a finding like any other: the parent knows which
 * case was running from a shared page, saves it, and starts a new worker
 * at the next case. */
#include "check.h"
#include "decode.h"
#include "fault.h"
#include "finding.h"
#include "replay.h"
#include "isolate.h"
#include "options.h"
#include "record.h"
#include "stop.h"
#include "rng.h"
#include "table.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAMILIES     5
#define MAX_FINDINGS 64
#define SIGNATURE    192

static const char help[] =
	"usage: random [OPTIONS]\n"
	"  --target=FAMILY|all  memcpy, memmove, memset, page, usercopy, or all in turn\n"
	"                   (default all: each family with variants here)\n"
	"  --variant=NAME   run only this variant (known-bad ones too)\n"
	"  --seconds=S      time budget, 1 or more (default 60)\n"
	"  --cases=N        stop after N cases (default: no limit)\n"
	"  --seed=N         run seed (default: from the clock; printed either way)\n"
	"  --max-len=N      fold lengths below N (default 4 MiB)\n"
	"  --thresholds=N,...  lengths the routine compares with (the values it\n"
	"                   reads): one case in four moved next to one of them\n"
	"  --findings=DIR   where findings are saved, one folder per target\n"
	"                   (default findings/random)\n"
	"  --max-findings=N stop after N distinct findings (default 10)\n"
	"  --format=text|jsonl  what stdout says: text, or the records of\n"
	"                   docs/records.md (finding, error, summary)\n"
	"Exit status: 0 no finding, 1 findings, 2 bad usage, or the run could not\n"
	"be judged (a finding not saved, a worker killed, no fork); 128+N stopped by\n"
	"signal N (SIGINT, SIGTERM, SIGHUP), the findings so far saved.\n";

struct options {
	const char *family, *variant, *findings;
	double seconds;
	unsigned long long cases, seed;
	size_t max_len;
	unsigned max_findings;
	struct mg_thresholds thresholds;
};

/* What the worker and the parent share: where the run is, and which
 * findings it has (so a new worker does not report one again). */
struct progress {
	unsigned long long next; /* the case running, or the next to run */
	unsigned long long failing_cases;
	unsigned findings;
	unsigned unsaved; /* findings whose files could not be written */
	char signatures[MAX_FINDINGS][SIGNATURE];
	volatile int in_call; /* odd while the worker is in a call (mg_call_watch) */
	int done;	      /* the worker finished its work */
	int write_failed;     /* a finding could not be saved or written */
	int errors;	      /* cases or workers that could not be judged */
	char why[256];	      /* the first of them */
};

static struct mg_target targets[FAMILIES];
static unsigned target_count;
static struct options opt = {
	.family = "all", .findings = "findings/random", .seconds = 60, .max_findings = 10};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One case in four when --thresholds names some: the case moved to a
 * length next to one of them (T-1, T or T+1) and encoded again, so that
 * its `size` bytes saved decode to it. A case that cannot take the length
 * (a page routine's, an overlap it no longer fits) stays as it was. */
static void near_threshold(const struct mg_target *t, unsigned long long i,
			   uint8_t input[MG_INPUT_MAX_BYTES], size_t *size)
{
	uint64_t r = mg_mix64(opt.seed ^ mg_mix64(i) ^ 0x7468726eull); /* "thrn" */
	struct mg_case c;
	char why[128];

	if (!opt.thresholds.n || r % 4)
		return;
	size_t at = opt.thresholds.at[(r >> 8) % opt.thresholds.n];
	if (at == 0 || at + 1 >= t->max_len) /* lengths are folded below max_len */
		return;
	mg_decode(t, input, *size, &c);
	c.len = at - 1 + (size_t)((r >> 40) % 3);
	if (!mg_case_valid(&c, why, sizeof why))
		return;
	mg_encode(t, &c, input);
	*size = mg_input_size(&c);
}

/* Case i's input, and the target it runs on: the families take turns.
 * The floating-point environment's byte, the stack byte, then the
 * situation bytes, come first, each from a draw of its own, so that the
 * rest is the input case i had before they were added; the vector length's
 * and the tag's bytes, before them, are the stack draw's third and fourth
 * bytes. `size`: how many of its bytes decode to the case (all of them,
 * unless near_threshold encoded it again). */
static const struct mg_target *make_input(unsigned long long i, uint8_t input[MG_INPUT_MAX_BYTES],
					  size_t *size)
{
	const unsigned stack_bytes = MG_INPUT_STACK_BYTES - MG_INPUT_SITUATION_BYTES;
	uint8_t *plain = input + (MG_INPUT_MAX_BYTES - MG_INPUT_BYTES);
	uint64_t situation = mg_mix64(opt.seed ^ mg_mix64(i) ^ 0x73697475ull); /* "situ" */
	uint64_t stack = mg_mix64(opt.seed ^ mg_mix64(i) ^ 0x7374616bull);	/* "stak" */
	uint64_t fpenv = mg_mix64(opt.seed ^ mg_mix64(i) ^ 0x6670656eull);	/* "fpen" */

	for (unsigned k = 0; k < MG_INPUT_BYTES; k += 8) {
		uint64_t r = mg_mix64(opt.seed ^ mg_mix64(i * 4 + k / 8));
		memcpy(plain + k, &r, MG_INPUT_BYTES - k < 8 ? MG_INPUT_BYTES - k : 8);
	}
	memcpy(input + MG_INPUT_MAX_BYTES - MG_INPUT_SITUATION_BYTES, &situation,
	       MG_INPUT_SITUATION_BYTES - MG_INPUT_BYTES);
	memcpy(input + MG_INPUT_MAX_BYTES - MG_INPUT_STACK_BYTES, &stack, stack_bytes);
	input[MG_INPUT_MAX_BYTES - MG_INPUT_FPENV_BYTES] = (uint8_t)fpenv;
	input[MG_INPUT_MAX_BYTES - MG_INPUT_VL_BYTES] = (uint8_t)(stack >> 16);
	input[MG_INPUT_MAX_BYTES - MG_INPUT_TAG_BYTES] = (uint8_t)(stack >> 24);
	*size = MG_INPUT_MAX_BYTES;
	near_threshold(&targets[i % target_count], i, input, size);
	return &targets[i % target_count];
}

static int seen(struct progress *p, const char *signature)
{
	for (unsigned i = 0; i < p->findings && i < MAX_FINDINGS; i++)
		if (strcmp(p->signatures[i], signature) == 0)
			return 1;
	return 0;
}

/* The run cannot be judged from here on: say why once, and stop. */
static void not_judged(struct progress *p, const char *why)
{
	if (!p->errors++)
		snprintf(p->why, sizeof p->why, "%.200s", why);
	if (mg_format == MG_FORMAT_JSONL)
		mg_record_error(stdout, "random", opt.variant, why);
	else
		printf("could not judge: %s\n", why);
	fflush(stdout);
}

static void show(struct progress *p, const struct mg_target *t, const struct mg_case *c,
		 const struct mg_verdict *v, const char *input)
{
	if (mg_format == MG_FORMAT_JSONL) {
		if (!mg_record_finding(stdout, c, v, "random", input))
			p->write_failed = 1;
		return;
	}
	printf("case %llu of seed 0x%llx:\n", p->next, opt.seed);
	mg_finding_print(stdout, t, c, v);
	fflush(stdout);
}

/* Saves a new finding (to disk first), prints it, and remembers it. */
static void record(struct progress *p, const struct mg_target *t, const struct mg_case *c,
		   const struct mg_verdict *v, const uint8_t *input, size_t size)
{
	char signature[SIGNATURE], dir[4096], saved[4096] = "";

	p->failing_cases++;
	mg_finding_signature(c, v, signature, sizeof signature);
	if (seen(p, signature) || p->findings >= MAX_FINDINGS)
		return;
	snprintf(dir, sizeof dir, "%s/%s", opt.findings, t->family);
	if (!mg_finding_save_as(dir, "random", t, c, v, input, size, saved,
				sizeof saved)) {
		p->write_failed = 1;
		saved[0] = '\0';
	}
	show(p, t, c, v, saved[0] ? saved : NULL);
	snprintf(p->signatures[p->findings], SIGNATURE, "%s", signature);
	p->findings++;
}

static int finished(const struct progress *p, double deadline)
{
	return (opt.cases && p->next >= opt.cases) || p->findings >= opt.max_findings ||
	       p->errors || now() >= deadline;
}

static void work(struct progress *p, double deadline)
{
	uint8_t input[MG_INPUT_MAX_BYTES];
	struct mg_case c;
	struct mg_verdict v;

	mg_call_watch(&p->in_call);
	for (;;) {
		/* The clock costs a system call under qemu: read it now and then. */
		if ((p->next & 63) == 0 && finished(p, deadline))
			break;
		if (opt.cases && p->next >= opt.cases)
			break;
		size_t size;
		const struct mg_target *t = make_input(p->next, input, &size);
		mg_decode(t, input, size, &c);
		mg_check(&c, &v);
		if (v.cls == MG_ERROR) {
			not_judged(p, v.detail);
			break;
		}
		if (v.cls != MG_OK)
			record(p, t, &c, &v, input, size);
		if (p->findings >= opt.max_findings)
			break;
		p->next++;
	}
	mg_call_watch(NULL);
	fflush(stdout);
	p->done = 1;
	_exit(0);
}

/* The worker died on case p->next: that case is the finding. */
static void worker_died(struct progress *p, int status)
{
	uint8_t input[MG_INPUT_MAX_BYTES];
	size_t size;
	const struct mg_target *t = make_input(p->next, input, &size);
	struct mg_case c;
	struct mg_verdict v;

	mg_decode(t, input, size, &c);
	mg_verdict_ended(&v, status, p->in_call & 1);
	p->in_call = 0;
	if (v.cls == MG_ERROR) {
		not_judged(p, v.detail);
		return;
	}
	record(p, t, &c, &v, input, size);
	p->next++;
}

static void run(struct progress *p, double deadline)
{
	for (;;) {
		int status;
		pid_t pid, got;

		fflush(NULL);
		p->done = 0;
		pid = mg_stop_fork();
		if (pid < 0 && mg_stop_signal())
			return;
		if (pid < 0) {
			not_judged(p, "cannot fork a worker");
			return;
		}
		if (pid == 0)
			work(p, deadline);
		while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			; /* a stop signal: its handler has stopped the worker */
		mg_stop_reaped(pid);
		if (got < 0) {
			not_judged(p, "cannot wait for the worker");
			return;
		}
		if (mg_stop_signal() || (WIFEXITED(status) && WEXITSTATUS(status) == 0 && p->done))
			return;
		worker_died(p, status);
		if (finished(p, deadline))
			return;
	}
}

/* Whether the main table has any variant of the family for this arch. */
static int family_has_variants(const char *family)
{
	for (size_t i = 0; i < mg_main_table.count; i++)
		if (strcmp(mg_family_of(mg_main_table.variants[i].op), family) == 0)
			return 1;
	return 0;
}

static void init_targets(void)
{
	static const char *const families[FAMILIES] = {"memcpy", "memmove", "memset", "page",
						       "usercopy"};
	const char *only = opt.family;
	char why[256];

	if (opt.variant && strcmp(only, "all") == 0)
		only = mg_family_of(mg_variant_find(opt.variant)->op);
	for (unsigned i = 0; i < FAMILIES; i++) {
		if (strcmp(only, "all") && strcmp(only, families[i]))
			continue;
		/* "all" is every family with variants here: the user copies
		 * have none on some arches yet (docs/usercopy.md). */
		if (!mg_target_init(&targets[target_count], families[i], opt.variant, why,
				    sizeof why)) {
			if (strcmp(only, "all") == 0 && !opt.variant &&
			    !family_has_variants(families[i]))
				continue;
			mg_usage_error("random", "%s", why);
		}
		if (opt.max_len)
			targets[target_count].max_len = opt.max_len;
		target_count++;
	}
	if (target_count == 0)
		mg_usage_error("random", "unknown target '%s' (valid: %s, all)", opt.family,
			       mg_family_names);
}

enum {
	O_TARGET = 1,
	O_VARIANT,
	O_SECONDS,
	O_CASES,
	O_SEED,
	O_MAXLEN,
	O_THRESHOLDS,
	O_DIR,
	O_MAXF,
	O_FORMAT,
	O_HELP
};

static const struct option long_opts[] = {
	{"target", required_argument, NULL, O_TARGET},
	{"variant", required_argument, NULL, O_VARIANT},
	{"seconds", required_argument, NULL, O_SECONDS},
	{"cases", required_argument, NULL, O_CASES},
	{"seed", required_argument, NULL, O_SEED},
	{"max-len", required_argument, NULL, O_MAXLEN},
	{"thresholds", required_argument, NULL, O_THRESHOLDS},
	{"findings", required_argument, NULL, O_DIR},
	{"max-findings", required_argument, NULL, O_MAXF},
	{"format", required_argument, NULL, O_FORMAT},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

/* A year: past that a budget is a typo, not a plan. */
#define MG_MAX_SECONDS (365u * 86400u)

static void parse(int argc, char **argv)
{
	int c, have_seed = 0;

	while ((c = mg_getopt(argc, argv, "random", long_opts)) != -1) {
		switch (c) {
		case O_TARGET: opt.family = optarg; break;
		case O_VARIANT: opt.variant = mg_parse_variant("random", optarg)->name; break;
		case O_SECONDS:
			opt.seconds = (double)mg_parse_positive("random", "seconds", optarg,
								MG_MAX_SECONDS);
			break;
		case O_CASES:
			opt.cases = mg_parse_u64("random", "cases", optarg);
			if (opt.cases == 0) /* not "no limit": leave the flag out for that */
				mg_usage_error("random", "--cases=%s: want 1 or more", optarg);
			break;
		case O_SEED:
			opt.seed = mg_parse_seed("random", "seed", optarg);
			have_seed = 1;
			break;
		case O_MAXLEN: opt.max_len = mg_parse_max_len("random", optarg); break;
		case O_THRESHOLDS: mg_parse_thresholds("random", optarg, &opt.thresholds); break;
		case O_DIR:
			if (!*optarg)
				mg_usage_error("random", "--findings= names no directory");
			opt.findings = optarg;
			break;
		case O_FORMAT: mg_parse_format("random", optarg); break;
		case O_MAXF:
			opt.max_findings =
				mg_parse_uint("random", "max-findings", optarg, UINT_MAX);
			if (opt.max_findings == 0 || opt.max_findings > MAX_FINDINGS)
				mg_usage_error("random", "--max-findings must be in 1..%d",
					       MAX_FINDINGS);
			break;
		case O_HELP: fputs(help, stdout); exit(0);
		}
	}
	mg_no_operands(argc, argv, "random");
	if (!have_seed)
		opt.seed = mg_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
}

/* Replay lines name the memgate of the build this driver belongs to: a
 * gate build's (MEMGATE_BUILD=build/gate/ARCH/NAME) has the submitted
 * variant, which build/ARCH/memgate does not. */
static void use_build_dir(const char *dir)
{
	static char program[4096];

	if (!dir || !*dir)
		return;
	snprintf(program, sizeof program, "%s/memgate", dir);
	mg_program = program;
}

static void print_end(const struct progress *p, double seconds)
{
	int saved = p->findings && !p->write_failed;

	printf("random: %llu cases in %.1f s (%.0f cases/s), seed 0x%llx: %u finding%s (%llu "
	       "failing cases)%s%s\n",
	       p->next, seconds, (double)p->next / seconds, opt.seed, p->findings,
	       p->findings == 1 ? "" : "s", p->failing_cases, saved ? ", saved in " : "",
	       saved ? opt.findings : "");
	if (p->write_failed)
		printf("could not judge: a finding could not be written to %s\n", opt.findings);
}

static int finish(struct progress *p, double seconds)
{
	struct mg_summary sum = {"random",
				 p->next,
				 p->next - p->failing_cases,
				 p->failing_cases,
				 (unsigned long long)p->errors +
					 (unsigned long long)p->write_failed,
				 0};
	int failed_output = 0;

	if (mg_format == MG_FORMAT_JSONL) {
		if (p->write_failed)
			mg_record_error(stdout, "random", opt.variant,
					"a finding could not be saved or written");
		failed_output = !mg_record_summary(stdout, &sum) || !mg_stdout_ok();
	} else {
		print_end(p, seconds);
		failed_output = !mg_stdout_ok();
	}
	if (p->errors || p->write_failed || failed_output)
		return MG_EXIT_NOT_JUDGED;
	return p->findings ? 1 : 0;
}

/* A stop signal ended the run: the cases so far, the findings saved. */
static int stopped(const struct progress *p, double seconds)
{
	char where[4300];

	snprintf(where, sizeof where, "%llu cases in %.1f s, %u finding%s%s%s", p->next, seconds,
		 p->findings, p->findings == 1 ? "" : "s", p->findings ? ", saved in " : "",
		 p->findings ? opt.findings : "");
	return mg_interrupted("random", opt.variant, where);
}

int main(int argc, char **argv)
{
	struct progress *p;
	double start;

	char why[4200];

	mg_stop_install("memgate random", 0);
	parse(argc, argv);
	use_build_dir(getenv("MEMGATE_BUILD"));
	init_targets();
	if (!mg_findings_dir_ready(opt.findings, why, sizeof why))
		mg_usage_error("random", "%s", why);
	p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("random: mmap");
		return MG_EXIT_NOT_JUDGED;
	}
	memset(p, 0, sizeof *p);
	if (mg_format == MG_FORMAT_TEXT)
		printf("random: seed 0x%llx, %u target%s%s%s, %.0f s budget\n", opt.seed,
		       target_count, target_count == 1 ? "" : "s", opt.variant ? ", variant " : "",
		       opt.variant ? opt.variant : "", opt.seconds);
	mg_check_init();
	start = now();
	run(p, start + opt.seconds);
	if (mg_stop_signal())
		return stopped(p, now() - start);
	return finish(p, now() - start);
}
