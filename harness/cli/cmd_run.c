/* memgate run: replays exactly one case, as printed by a failing sweep. */
#include "abi.h"
#include "check.h"
#include "convention.h"
#include "cpu.h"
#include "emit_c.h"
#include "huge.h"
#include "isolate.h"
#include "options.h"
#include "memcheck.h"
#include "record.h"
#include "stop.h"
#include "table.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
	"usage: memgate run --variant=NAME --len=N [OPTIONS]\n"
	"  --src-align=N   source address mod 64 (default 0)\n"
	"  --dst-align=N   destination address mod 64 (default 0)\n"
	"  --overlap=D     memmove: one buffer, dst = src + D (0: d == s); past 16 MiB\n"
	"                  (the 2 GiB+ check, docs/design.md) 1 <= |D| <= 16384\n"
	"  --src-above     separate buffers: the source above the destination\n"
	"  --hide-feature=LIST  act as if the CPU lacked these features\n"
	"  --oracle        a huge length with only 64 KiB of each buffer mapped\n"
	"  --value=C       memset's int argument (default 0)\n"
	"  --place=after|before  the guard page the buffers sit against (default after)\n"
	"  --spot=NAME:N   where the buffers go instead of at a guard page:\n"
	"                  straddle-src|straddle-dst|straddle-both:SPLIT, page-diff:D,\n"
	"                  split-2gib:0, span-2gib:BELOW, far:0, span-4gib:BELOW\n"
	"                  (docs/placements.md)\n"
	"  --seed=N        fill seed (default 0)\n"
	"  --interrupt=none|step  step: stop the routine after every instruction, as\n"
	"                  a signal or interrupt may (docs/contract.md, S1; x86)\n"
	"  --threads=N     run the case in N threads at once (2 to 4), each on buffers\n"
	"                  of its own (docs/contract.md, S2; default 1)\n"
	"  --stack-offset=N  the stack pointer's alignment at entry, N = (rsp + 8) mod\n"
	"                  64 on x86-64, (esp + 4) mod 64 on i386, sp mod 64 on aarch64: a\n"
	"                  multiple of 16 (x86-64 kernel code: 8, i386 kernel code: 4;\n"
	"                  docs/contract.md, X9; default 0)\n"
	"  --fpenv=NAME    the floating-point environment at entry (docs/contract.md,\n"
	"                  C17, X6, A7, R7, R9): " MG_ABI_FPENV_NAMES " (default)\n"
	"  --vl=N          the vector length the routine runs with, in bytes (SVE: one\n"
	"                  of the CPU's, powers of two from 16 to 256; docs/contract.md,\n"
	"                  A12; default: the length the program started with)\n"
	"  --tag=N         pass pointers with N (1-255) in their top byte, where it is\n"
	"                  ignored (aarch64: dst's and an overlapping src's N, a\n"
	"                  separate src's N ^ 0x5a; docs/contract.md, A14; default 0)\n"
	"  --fault-at=K    the user copies: the user buffer faults from byte K on (its\n"
	"                  alignment follows; docs/usercopy.md; default: no fault)\n"
	"  --convention=TEXT  call the variant with this register convention instead\n"
	"                  of the one it declares: 'args=REG,... [ret=REG]\n"
	"                  [clobbers=REG,...] [zero=REG,...]', or c, the C convention\n"
	"                  (x86-64; docs/conventions.md)\n"
	"  --timeout-ms=N  per-call watchdog (default 1000, at least 1)\n"
	"  --overread=classify|strict  under memcheck: an over-read within an aligned\n"
	"                        block holding a buffer byte is a warning (classify,\n"
	"                        the default) or a failure (strict)\n"
	"  --platform-register=auto|reserved|free  aarch64: whether x18 must be\n"
	"                  preserved (auto: only by kernel-style variants)\n"
	"  --format=text|jsonl  what stdout says: text, or the records of\n"
	"                  docs/records.md (case, finding, error, summary)\n"
	"  --emit-c=OUT.c  a memmove of 2 GiB and more within one buffer: also\n"
	"                  write a standalone C program that reproduces it; other\n"
	"                  huge lengths are refused, saying why, and the others'\n"
	"                  program is scripts/repro --emit-c's\n"
	"Exit status: 0 the case passes, 1 it fails, 2 bad usage or could not judge;\n"
	"128+N stopped by signal N (SIGINT, SIGTERM, SIGHUP).\n";

enum {
	O_VARIANT = 1,
	O_LEN,
	O_SRC,
	O_DST,
	O_OVERLAP,
	O_VALUE,
	O_PLACE,
	O_SEED,
	O_TIMEOUT,
	O_ABOVE,
	O_HIDE,
	O_ORACLE,
	O_PLATFORM,
	O_FORMAT,
	O_SPOT,
	O_OVERREAD,
	O_INTERRUPT,
	O_THREADS,
	O_STACK,
	O_FPENV,
	O_VL,
	O_TAG,
	O_FAULT_AT,
	O_CONVENTION,
	O_EMIT,
	O_HELP
};

static const struct option opts[] = {
	{"variant", required_argument, NULL, O_VARIANT},
	{"len", required_argument, NULL, O_LEN},
	{"convention", required_argument, NULL, O_CONVENTION},
	{"src-align", required_argument, NULL, O_SRC},
	{"dst-align", required_argument, NULL, O_DST},
	{"overlap", required_argument, NULL, O_OVERLAP},
	{"value", required_argument, NULL, O_VALUE},
	{"place", required_argument, NULL, O_PLACE},
	{"seed", required_argument, NULL, O_SEED},
	{"timeout-ms", required_argument, NULL, O_TIMEOUT},
	{"overread", required_argument, NULL, O_OVERREAD},
	{"src-above", no_argument, NULL, O_ABOVE},
	{"hide-feature", required_argument, NULL, O_HIDE},
	{"oracle", no_argument, NULL, O_ORACLE},
	{"platform-register", required_argument, NULL, O_PLATFORM},
	{"format", required_argument, NULL, O_FORMAT},
	{"spot", required_argument, NULL, O_SPOT},
	{"interrupt", required_argument, NULL, O_INTERRUPT},
	{"threads", required_argument, NULL, O_THREADS},
	{"stack-offset", required_argument, NULL, O_STACK},
	{"fpenv", required_argument, NULL, O_FPENV},
	{"vl", required_argument, NULL, O_VL},
	{"tag", required_argument, NULL, O_TAG},
	{"fault-at", required_argument, NULL, O_FAULT_AT},
	{"emit-c", required_argument, NULL, O_EMIT},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

/* memgate run --emit-c: a finding's repro line is memgate run's only where
 * the case has no input (a length of 2 GiB and more), so a user adds
 * --emit-c to it as to scripts/repro's: the one-buffer memmove gets its
 * program (emit_c.c), another case is told why there is none. */
static const char *emit_c;

/* "NAME:N" (or "NAME", N 0). */
static void parse_spot(const char *cmd, const char *text, enum mg_spot *spot, size_t *arg)
{
	char name[32];
	size_t n = strcspn(text, ":");

	if (n >= sizeof name)
		mg_usage_error(cmd, "unknown spot '%s'", text);
	memcpy(name, text, n);
	name[n] = '\0';
	if (!mg_spot_parse(name, spot))
		mg_usage_error(cmd,
			       "unknown spot '%s' (valid: guard, straddle-src, straddle-dst, "
			       "straddle-both, page-diff, split-2gib, span-2gib, far, span-4gib)",
			       name);
	*arg = text[n] ? (size_t)mg_parse_u64(cmd, "spot", text + n + 1) : 0;
}

static unsigned parse_fpenv(const char *cmd, const char *text)
{
	for (unsigned k = 0; mg_abi_fpenv_name(k); k++)
		if (!strcmp(text, mg_abi_fpenv_name(k)))
			return k;
	mg_usage_error(cmd, "unknown --fpenv '%s' (valid: " MG_ABI_FPENV_NAMES ")", text);
}

/* The variant called with another convention than its own: a copy of its
 * row (the case's variant), which the replay line tells from the table's. */
static void override_convention(const char *cmd, struct mg_case *c, const char *text)
{
	static struct mg_variant with;
	struct mg_convention conv;
	char err[256];

	if (mg_convention_parse(text, &conv, err, sizeof err) < 0 ||
	    (conv.nargs && mg_convention_fits(&conv, c->variant->op, c->variant->ret, err,
					      sizeof err) < 0))
		mg_usage_error(cmd, "--convention '%s': %s", text, err);
	with = *c->variant;
	with.convention = text;
	c->variant = &with;
}

int mg_parse_case_flags(int argc, char **argv, const char *cmd, struct mg_case *c)
{
	const char *convention = NULL;
	long long overlap = 0, value;
	int have_overlap = 0, have_len = 0, opt;
	enum mg_spot spot = MG_SPOT_GUARD;
	size_t spot_arg = 0, fault_at = 0;
	int have_fault = 0;

	while ((opt = mg_getopt(argc, argv, cmd, opts)) != -1) {
		switch (opt) {
		case O_VARIANT: c->variant = mg_parse_variant(cmd, optarg); break;
		case O_LEN:
			c->len = (size_t)mg_parse_u64(cmd, "len", optarg);
			have_len = 1;
			break;
		case O_SRC: c->src_align = mg_parse_uint(cmd, "src-align", optarg, UINT_MAX); break;
		case O_DST: c->dst_align = mg_parse_uint(cmd, "dst-align", optarg, UINT_MAX); break;
		case O_OVERLAP:
			overlap = mg_parse_i64(cmd, "overlap", optarg);
			have_overlap = 1;
			break;
		case O_VALUE:
			value = mg_parse_i64(cmd, "value", optarg);
			if (value < INT_MIN || value > INT_MAX)
				mg_usage_error(cmd, "--value %s does not fit in an int", optarg);
			c->value = (int)value;
			break;
		case O_PLACE:
			if (strcmp(optarg, "after") && strcmp(optarg, "before"))
				mg_usage_error(cmd, "unknown place '%s' (valid: after, before)",
					       optarg);
			c->place = strcmp(optarg, "after") ? MG_PLACE_BEFORE : MG_PLACE_AFTER;
			break;
		case O_SEED: c->seed = mg_parse_seed(cmd, "seed", optarg); break;
		case O_OVERREAD: mg_parse_overread(cmd, optarg); break;
		case O_TIMEOUT:
			mg_check_timeout_ms =
				mg_parse_positive(cmd, "timeout-ms", optarg, MG_MAX_TIMEOUT_MS);
			break;
		case O_ABOVE: c->src_above = 1; break;
		case O_HIDE: mg_parse_hidden_features(cmd, optarg); break;
		case O_ORACLE: c->oracle = 1; break;
		case O_PLATFORM: mg_parse_platform_rule(cmd, optarg); break;
		case O_FORMAT: mg_parse_format(cmd, optarg); break;
		case O_SPOT: parse_spot(cmd, optarg, &spot, &spot_arg); break;
		case O_INTERRUPT:
			if (strcmp(optarg, "none") && strcmp(optarg, "step"))
				mg_usage_error(cmd, "unknown --interrupt '%s' (valid: none, step)",
					       optarg);
			c->interrupt = strcmp(optarg, "step") == 0;
			break;
		case O_THREADS:
			c->threads = mg_parse_positive(cmd, "threads", optarg, MG_THREADS_MAX);
			if (c->threads == 1)
				c->threads = 0;
			break;
		case O_STACK:
			c->stack_offset = mg_parse_uint(cmd, "stack-offset", optarg, MG_ALIGN_MOD - 1);
			break;
		case O_FPENV: c->fpenv = parse_fpenv(cmd, optarg); break;
		case O_VL: c->vl = mg_parse_uint(cmd, "vl", optarg, 65536); break;
		case O_TAG: c->tag = mg_parse_uint(cmd, "tag", optarg, 255); break;
		case O_FAULT_AT:
			have_fault = 1;
			fault_at = (size_t)mg_parse_u64(cmd, "fault-at", optarg);
			break;
		case O_CONVENTION: convention = optarg; break;
		case O_EMIT:
			if (strcmp(cmd, "run") != 0)
				mg_usage_error(cmd, "unknown option '--emit-c'");
			emit_c = optarg;
			break;
		case O_HELP: return 0;
		}
	}
	mg_no_operands(argc, argv, cmd);
	if (!c->variant || !have_len)
		mg_usage_error(cmd, "--variant and --len are required (see memgate run --help)");
	if (convention)
		override_convention(cmd, c, convention);
	if (have_overlap) {
		if (c->src_align >= MG_ALIGN_MOD)
			mg_usage_error(cmd, "--src-align %u is not below 64", c->src_align);
		mg_case_set_overlap(c, (long)overlap);
	}
	mg_case_set_spot(c, spot, spot_arg);
	if (have_fault && !mg_op_is_user(c->variant->op))
		mg_usage_error(cmd, "--fault-at is for copy_from_user, copy_to_user and clear_user, "
				    "not %s", mg_op_name(c->variant->op));
	if (have_fault)
		mg_case_set_fault(c, fault_at);
	return 1;
}

/* Whether memgate run writes the program of `c`: a memmove of 2 GiB and
 * more within one buffer (huge.c's "one buffer"). */
static int emits(const struct mg_case *c)
{
	return mg_case_is_huge(c) && c->overlap && !c->oracle;
}

/* Why memgate run writes no standalone program for `c` (exit 2). */
__attribute__((noreturn)) static void emit_refused(const struct mg_case *c)
{
	if (mg_case_is_huge(c))
		mg_usage_error("run",
			       "--emit-c: a length over %zu without overlap (or --oracle) runs in the "
			       "mapped regions of memgate's huge-length check, which a standalone "
			       "program does not reproduce: use the replay command (this one without "
			       "--emit-c)",
			       (size_t)MG_MAX_LEN);
	mg_usage_error("run",
		       "--emit-c: memgate run writes no program; scripts/repro --emit-c OUT.c does, "
		       "from the case as an input (memgate encode with these options and "
		       "--output=CASE.in)");
}

/* The case could not run on this CPU: not a verdict on the routine. */
static int skip(const char *why)
{
	struct mg_summary sum = {.command = "run", .skipped = 1};

	if (mg_format == MG_FORMAT_TEXT)
		printf("SKIP %s\n", why);
	else if (!mg_record_summary(stdout, &sum))
		return MG_EXIT_NOT_JUDGED;
	return 0;
}

static int not_judged(const struct mg_case *c, const char *why)
{
	struct mg_summary sum = {.command = "run", .errors = 1};

	if (mg_format == MG_FORMAT_TEXT) {
		printf("could not judge: %s\n", why);
	} else {
		mg_record_error(stdout, "run", c->variant->name, why);
		mg_record_summary(stdout, &sum);
	}
	return MG_EXIT_NOT_JUDGED;
}

static void print_verdict(const struct mg_verdict *v)
{
	if (v->cls == MG_OK)
		printf("verdict: ok\n");
	else
		printf("verdict: %s: %s\n", mg_class_name(v->cls), v->detail);
	char where[128];

	for (unsigned w = 1; w && w <= v->warnings; w <<= 1)
		if (v->warnings & w)
			printf("warning: %s\n", mg_warning_text(w));
	if (v->warnings & MG_WARN_ALIGNED_OVERREAD) {
		mg_overread_describe(&v->overread, where, sizeof where);
		printf("warning: aligned-over-read: %s\n", where);
	}
	for (unsigned i = 0; i < MG_UNJUDGED_KINDS; i++)
		if (v->unjudged & (1u << i))
			printf("not judged here: %s\n", mg_unjudged_text(1u << i));
}

static int write_records(const struct mg_case *c, const struct mg_verdict *v)
{
	int failed = v->cls != MG_OK;
	struct mg_summary sum = {
		.command = "run", .cases = 1, .passed = !failed, .failed = (unsigned)failed};

	return mg_record_case(stdout, c, v, "run", NULL, !failed) &&
	       mg_record_summary(stdout, &sum);
}

int mg_cmd_run(int argc, char **argv)
{
	struct mg_case c = {0};
	struct mg_verdict v;
	char text[512], needs[160];

	mg_stop_install("memgate run", 0);
	if (!mg_parse_case_flags(argc, argv, "run", &c)) {
		fputs(help, stdout);
		return 0;
	}
	if (!mg_case_valid(&c, text, sizeof text))
		mg_usage_error("run", "invalid case for %s: %s", c.variant->name, text);
	if (emit_c && !emits(&c))
		emit_refused(&c);
	if (mg_cpu_missing(c.variant->features, needs, sizeof needs)) {
		snprintf(text, sizeof text, "(needs %s): %s cannot run on this CPU", needs,
			 c.variant->name);
		return skip(text);
	}
	if (mg_case_is_huge(&c) && !mg_huge_possible(needs, sizeof needs)) {
		snprintf(text, sizeof text, "lengths over %zu cannot run here: %s",
			 (size_t)MG_MAX_LEN, needs);
		/* n/a: a 32-bit address space without the room */
		return mg_huge_na() ? skip(text) : not_judged(&c, text);
	}
	if (mg_format == MG_FORMAT_TEXT) {
		mg_case_describe(&c, text, sizeof text);
		printf("case: %s\n", text);
	}
	/* In a child, which confirms the call returned: a variant that ends
	 * the process is a crash, not a silent pass. */
	mg_check_isolated(&c, &v);
	if (mg_stop_signal())
		return mg_interrupted("run", c.variant->name, NULL);
	if (v.cls == MG_ERROR)
		return not_judged(&c, v.detail);
	if (mg_format == MG_FORMAT_TEXT)
		print_verdict(&v);
	else if (!write_records(&c, &v))
		return MG_EXIT_NOT_JUDGED;
	if (emit_c) {
		mg_emit_c(emit_c, &c, &v);
		if (mg_format == MG_FORMAT_TEXT)
			printf("emitted: %s, a standalone program; the lines in its header build "
			       "and run it\n",
			       emit_c);
	}
	if (!mg_stdout_ok())
		return MG_EXIT_NOT_JUDGED;
	return v.cls != MG_OK;
}
