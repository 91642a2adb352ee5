/* The plain replay driver: runs saved fuzz inputs (files, or directories of
 * them) through the same decoder and checker as the fuzz targets, built
 * without any fuzzer, and prints "N passed, N failed".
 *
 * Which target (family) and variant a file is for comes from the flags, or
 * else from its path: a directory named after a family ("memcpy", or
 * "fuzz_memcpy") gives the target, and one named after a variant pins it,
 * as in corpus/regressions/memcpy/bad_memcpy_overread_src/NAME.in. */
#include "check.h"
#include "cpu.h"
#include "decode.h"
#include "emit_c.h"
#include "finding.h"
#include "fault.h"
#include "isolate.h"
#include "options.h"
#include "memcheck.h"
#include "record.h"
#include "stop.h"
#include "table.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* No fuzzer writes inputs longer than this for our targets (their .options
 * set max_len far below); a longer file is not one of ours. */
#define INPUT_MAX 4096

static const char help[] =
	"usage: replay [OPTIONS] FILE|DIR...\n"
	"  --target=FAMILY  memcpy, memmove, memset or page (default: from the path)\n"
	"  --variant=NAME   run this variant (default: from the path, else the input's pick)\n"
	"  --each-variant   run each input on every correct variant of its target\n"
	"  --expect=pass|fail  what each run must do (default pass)\n"
	"  --max-len=N      fold lengths below N, as the fuzz target was told\n"
	"  --verbose        print every case and verdict, not only the unexpected ones\n"
	"  --emit-c=OUT.c   write a standalone C program reproducing the (one) input\n"
	"  --in-process     no child process per case (a crashing variant ends the run)\n"
	"  --format=text|jsonl  what stdout says: text, or the records of docs/records.md\n"
	"  --overread=classify|strict  under memcheck: an over-read within an aligned\n"
	"                        block holding a buffer byte is a warning (classify,\n"
	"                        the default) or a failure (strict)\n"
	"                   (case, finding, error, summary), written as each case ends\n"
	"Exit status: 0 every run as expected, 1 some not, 2 bad usage, a bad input\n"
	"file, or a case that could not be judged; 128+N stopped by signal N\n"
	"(SIGINT, SIGTERM, SIGHUP).\n";

struct options {
	const char *target, *variant, *emit_c;
	int each_variant, expect_fail, verbose, in_process;
	size_t max_len;
};

struct totals {
	unsigned passed, failed, skipped, errors;
};

static const struct options *opt;

__attribute__((noreturn, format(printf, 1, 2))) static void file_error(const char *format, ...)
{
	char why[4200];
	va_list args;

	va_start(args, format);
	vsnprintf(why, sizeof why, format, args);
	va_end(args);
	fputs("replay: ", stderr);
	mg_print_shown(stderr, why);
	fputc('\n', stderr);
	if (mg_format == MG_FORMAT_JSONL)
		mg_record_error(stdout, "replay", NULL, why);
	exit(MG_EXIT_USAGE);
}

/* A finding's .txt (fuzz targets, random: "memgate: FINDING ..."; verify:
 * "== memgate verify run of ..." or, before its run headers, "CLASS:
 * detail"), by its name or its first words: never an input, though its
 * bytes would decode as one. */
static int is_report(const char *path, const uint8_t *buf, size_t n)
{
	size_t len = strlen(path), word = 0;
	char name[32];

	if (len >= 4 && strcmp(path + len - 4, ".txt") == 0)
		return 1;
	if ((n >= 8 && memcmp(buf, "memgate:", 8) == 0) ||
	    (n >= 10 && memcmp(buf, "== memgate", 10) == 0))
		return 1;
	while (word < n && word < sizeof name - 1 && buf[word] != ':')
		word++;
	if (word == n || buf[word] != ':')
		return 0;
	memcpy(name, buf, word);
	name[word] = '\0';
	return mg_class_parse(name) != MG_CLASS_COUNT;
}

/* Reads a whole input, or exits 2 saying what is wrong with the file. */
static size_t read_input(const char *path, uint8_t *buf)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		file_error("cannot open %s: %s", path, strerror(errno));
	n = fread(buf, 1, INPUT_MAX + 1, f);
	if (ferror(f))
		file_error("cannot read %s: %s", path, strerror(errno));
	fclose(f);
	if (n > INPUT_MAX)
		file_error("%s is not a memgate fuzz input: over %d bytes", path, INPUT_MAX);
	if (is_report(path, buf, n))
		file_error("%s is a finding report, not an input: use the .in file next to it",
			   path);
	return n;
}

/* The path's directory names, from the innermost out. */
static const char *path_component(const char *path, const char *(*match)(const char *))
{
	static char copy[4096];
	const char *hit = NULL;

	snprintf(copy, sizeof copy, "%s", path);
	for (char *part = strtok(copy, "/"); part; part = strtok(NULL, "/")) {
		const char *m = match(part);
		if (m)
			hit = m;
	}
	return hit;
}

static const char *family_name(const char *part)
{
	static const char *const names[] = {"memcpy", "memmove", "memset", "page", "usercopy"};

	if (strncmp(part, "fuzz_", 5) == 0)
		part += 5;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(part, names[i]) == 0)
			return names[i];
	return NULL;
}

static const char *variant_name(const char *part)
{
	const struct mg_variant *v = mg_variant_find(part);
	return v ? v->name : NULL;
}

static void target_for(const char *path, const char *variant, struct mg_target *t)
{
	const char *family = opt->target ? opt->target : path_component(path, family_name);
	char why[256];

	if (!family && variant && mg_variant_find(variant))
		family = mg_family_of(mg_variant_find(variant)->op);
	if (!family)
		file_error("%s: which target? none in its path; give --target=FAMILY (%s)", path,
			   mg_family_names);
	if (!mg_target_init(t, family, variant, why, sizeof why))
		file_error("%s: %s", path, why);
	if (opt->max_len)
		t->max_len = opt->max_len;
}

/* The variant is running, in --in-process mode (mg_call_watch). */
static volatile int in_call; /* odd during a call (mg_call_watch) */

/* exit() from inside the variant: not a pass. (_exit skips this; then the
 * summary that never comes says it.) */
static void exit_during_call(void)
{
	if (!(in_call & 1))
		return;
	fputs("replay: the variant ended the process during a call: it never returned\n", stderr);
	abort();
}

static void judge(const struct mg_case *c, struct mg_verdict *v)
{
	if (opt->in_process)
		mg_check(c, v);
	else
		mg_check_isolated(c, v);
}

static void print_case(const char *path, const struct mg_target *t, const struct mg_case *c,
		       const struct mg_verdict *v, size_t size, int as_expected)
{
	char text[512];

	if (!opt->verbose && as_expected)
		return;
	printf("%s %s (%zu bytes) on %s\n", as_expected ? "ok  " : "FAIL", path, size,
	       c->variant->name);
	if (v->cls != MG_OK) {
		mg_finding_print(stdout, t, c, v);
		return;
	}
	mg_case_describe(c, text, sizeof text);
	printf("  case:      %s\n  verdict:   ok%s\n", text,
	       opt->expect_fail ? " (a failure was expected)" : "");
}

static void not_judged(const char *path, const struct mg_case *c, const char *why,
		       struct totals *sum)
{
	char line[MG_DETAIL_MAX + 512];

	sum->errors++;
	snprintf(line, sizeof line, "%s on %s: %s", path, c->variant->name, why);
	if (mg_format == MG_FORMAT_JSONL) {
		if (!mg_record_error(stdout, "replay", c->variant->name, line))
			sum->errors++;
	} else {
		printf("could not judge: %s\n", line);
	}
}

/* What of a case's state at entry the program can be written without. */
enum entry_part { ENTRY_STACK, ENTRY_FPENV, ENTRY_TAG };

/* Whether `c` with that part put back to the default (the stack offset 0,
 * the default floating-point environment, untagged pointers) gets verdict
 * v, word for word; if so, *c is that case. */
static bool same_verdict_without(struct mg_case *c, const struct mg_verdict *v,
				 enum entry_part part)
{
	struct mg_case plain = *c;
	struct mg_verdict again;

	switch (part) {
	case ENTRY_STACK: plain.stack_offset = 0; break;
	case ENTRY_FPENV: plain.fpenv = 0; break;
	case ENTRY_TAG: plain.tag = 0; break;
	}
	judge(&plain, &again);
	if (again.cls != v->cls || strcmp(again.detail, v->detail) != 0)
		return false;
	*c = plain;
	return true;
}

/* --emit-c: the standalone program calls the routine as main() would: the
 * stack as main()'s call has it, the default floating-point environment,
 * untagged pointers. A case found at another alignment of the stack
 * pointer at entry (--stack-offset), in another floating-point
 * environment (--fpenv) or with tagged pointers (--tag: aarch64's sweep
 * tags most of its cases), is written without each that the same verdict,
 * word for word, shows it is not about. What the verdict does need is
 * written with the call at that offset and in that environment (emit_c.c:
 * at_stack_offset, enter_fpenv); a verdict that needs the tags is refused
 * (mg_emit_c says why, and names the replay command). */
static void emit_standalone(const struct mg_case *c, const struct mg_verdict *v)
{
	struct mg_case plain = *c;

	if (plain.stack_offset && same_verdict_without(&plain, v, ENTRY_STACK))
		fprintf(stderr, "emit-c: the same verdict at --stack-offset=0: the program calls at "
				"the alignment a C call has\n");
	if (plain.fpenv && same_verdict_without(&plain, v, ENTRY_FPENV))
		fprintf(stderr, "emit-c: the same verdict in --fpenv=default: the program calls in "
				"the default floating-point environment\n");
	if (plain.tag && same_verdict_without(&plain, v, ENTRY_TAG))
		fprintf(stderr, "emit-c: the same verdict without --tag: the program calls with "
				"untagged pointers\n");
	mg_emit_c(opt->emit_c, &plain, v);
}

static void run_case(const char *path, const struct mg_target *t, const uint8_t *data, size_t size,
		     struct totals *sum)
{
	struct mg_case c;
	struct mg_verdict v;
	int failed, as_expected;
	char needs[128];

	mg_decode(t, data, size, &c);
	/* A pinned variant this CPU (or valgrind's) cannot run: said, not run. */
	if (mg_cpu_missing(c.variant->features, needs, sizeof needs)) {
		if (mg_format == MG_FORMAT_TEXT)
			printf("SKIP %s on %s (needs %s)\n", path, c.variant->name, needs);
		sum->skipped++;
		return;
	}
	judge(&c, &v);
	if (mg_stop_signal())
		return; /* the case's child was stopped: no verdict */
	if (v.cls == MG_ERROR) {
		not_judged(path, &c, v.detail, sum);
		return;
	}
	failed = v.cls != MG_OK;
	as_expected = failed == opt->expect_fail;
	sum->passed += as_expected;
	sum->failed += !as_expected;
	if (mg_format == MG_FORMAT_TEXT)
		print_case(path, t, &c, &v, size, as_expected);
	else if (!mg_record_case(stdout, &c, &v, "replay", path, as_expected))
		sum->errors++;
	if (opt->emit_c)
		emit_standalone(&c, &v);
}

static void replay_file(const char *path, struct totals *sum)
{
	uint8_t data[INPUT_MAX + 1];
	size_t size = read_input(path, data);
	const char *variant = opt->variant ? opt->variant : path_component(path, variant_name);
	struct mg_target t, each;

	if (opt->each_variant)
		variant = NULL;
	target_for(path, variant, &t);
	if (!opt->each_variant) {
		run_case(path, &t, data, size, sum);
		return;
	}
	each = t;
	for (unsigned i = 0; i < t.count && !mg_stop_signal(); i++) {
		each.pool[0] = t.pool[i];
		each.count = 1;
		each.pinned = true;
		run_case(path, &each, data, size, sum);
	}
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* What a path is, when it is neither an input file nor a folder of them. */
static const char *odd_kind(mode_t mode)
{
	return S_ISFIFO(mode)  ? "a FIFO"
	       : S_ISCHR(mode) ? "a character device"
	       : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a regular file";
}

/* Replays a file, or each input below a folder; returns how many inputs it
 * found. */
static unsigned replay_path(const char *path, struct totals *sum)
{
	struct dirent **entries;
	struct stat st;
	unsigned inputs = 0;
	int n;

	if (stat(path, &st) != 0)
		file_error("%s: %s", path, strerror(errno));
	/* Opening a FIFO would wait for a writer: refuse it before. */
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		file_error("%s is %s, not a memgate fuzz input", path, odd_kind(st.st_mode));
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path, sum);
		return 1;
	}
	n = scandir(path, &entries, NULL, by_name);
	if (n < 0)
		file_error("%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char child[4096];
		const char *name = entries[i]->d_name;
		/* Dot files are not inputs (README.md is skipped the same way). */
		if (name[0] != '.' && !strstr(name, ".md") && !strstr(name, ".txt") &&
		    !mg_stop_signal()) {
			snprintf(child, sizeof child, "%s/%s", path, name);
			inputs += replay_path(child, sum);
		}
		free(entries[i]);
	}
	free(entries);
	return inputs;
}

/* A folder given with no input in it: nothing replayed is no pass. */
static void replay_arg(const char *path, struct totals *sum)
{
	if (replay_path(path, sum) == 0 && !mg_stop_signal())
		file_error("%s holds no input to replay (the folder and those below it are empty, "
			   "or hold only reports and dot files)", path);
}

enum {
	O_TARGET = 1,
	O_VARIANT,
	O_EACH,
	O_EXPECT,
	O_MAXLEN,
	O_VERBOSE,
	O_EMIT,
	O_INPROC,
	O_FORMAT,
	O_OVERREAD,
	O_HELP
};

static const struct option long_opts[] = {
	{"target", required_argument, NULL, O_TARGET},
	{"variant", required_argument, NULL, O_VARIANT},
	{"each-variant", no_argument, NULL, O_EACH},
	{"expect", required_argument, NULL, O_EXPECT},
	{"max-len", required_argument, NULL, O_MAXLEN},
	{"verbose", no_argument, NULL, O_VERBOSE},
	{"emit-c", required_argument, NULL, O_EMIT},
	{"in-process", no_argument, NULL, O_INPROC},
	{"format", required_argument, NULL, O_FORMAT},
	{"overread", required_argument, NULL, O_OVERREAD},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

static void parse(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = mg_getopt(argc, argv, "replay", long_opts)) != -1) {
		switch (c) {
		case O_TARGET: o->target = optarg; break;
		case O_VARIANT: o->variant = mg_parse_variant("replay", optarg)->name; break;
		case O_EACH: o->each_variant = 1; break;
		case O_EXPECT:
			if (strcmp(optarg, "pass") && strcmp(optarg, "fail"))
				mg_usage_error("replay", "--expect must be pass or fail, not '%s'",
					       optarg);
			o->expect_fail = strcmp(optarg, "fail") == 0;
			break;
		case O_MAXLEN: o->max_len = mg_parse_max_len("replay", optarg); break;
		case O_VERBOSE: o->verbose = 1; break;
		case O_EMIT: o->emit_c = optarg; break;
		case O_INPROC: o->in_process = 1; break;
		case O_OVERREAD: mg_parse_overread("replay", optarg); break;
		case O_FORMAT: mg_parse_format("replay", optarg); break;
		case O_HELP: fputs(help, stdout); exit(0);
		}
	}
	if (optind == argc)
		mg_usage_error("replay", "no input given (see replay --help)");
	if (o->emit_c && (argc - optind != 1 || o->each_variant))
		mg_usage_error("replay", "--emit-c takes exactly one input and one variant");
}

/* Replay lines name the memgate of the build this driver belongs to: a
 * gate build's (MEMGATE_BUILD=build/gate/NAME) has the submitted variant. */
static void use_build_dir(const char *dir)
{
	static char program[4096];

	if (!dir || !*dir)
		return;
	snprintf(program, sizeof program, "%s/memgate", dir);
	mg_program = program;
}

static int finish(const struct totals *sum)
{
	struct mg_summary rec = {"replay",    sum->passed + sum->failed,
				 sum->passed, sum->failed,
				 sum->errors, sum->skipped};
	int errors = sum->errors;

	if (mg_format == MG_FORMAT_JSONL) {
		errors += !mg_record_summary(stdout, &rec) || !mg_stdout_ok();
	} else {
		if (sum->skipped)
			printf("%u passed, %u failed, %u skipped", sum->passed, sum->failed,
			       sum->skipped);
		else
			printf("%u passed, %u failed", sum->passed, sum->failed);
		printf(sum->errors ? ", %u not judged\n" : "\n", sum->errors);
		errors += !mg_stdout_ok();
	}
	return errors ? MG_EXIT_NOT_JUDGED : sum->failed ? 1 : 0;
}

/* A stop signal: what ran so far, and the line that says it was cut. */
static int stopped(const struct totals *sum)
{
	char where[128];

	snprintf(where, sizeof where, "%u passed, %u failed before it", sum->passed,
		 sum->failed);
	return mg_interrupted("replay", opt->variant, where);
}

int main(int argc, char **argv)
{
	static struct options o;
	struct totals sum = {0, 0, 0, 0};

	parse(argc, argv, &o);
	opt = &o;
	/* In one process there is nothing to stop but itself. */
	mg_stop_install("memgate replay", o.in_process);
	use_build_dir(getenv("MEMGATE_BUILD"));
	mg_check_init();
	if (o.in_process) {
		mg_call_watch(&in_call);
		atexit(exit_during_call);
	}
	for (int i = optind; i < argc && !mg_stop_signal(); i++)
		replay_arg(argv[i], &sum);
	if (mg_stop_signal())
		return stopped(&sum);
	return finish(&sum);
}
