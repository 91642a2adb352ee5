/* memgate speed: the variant under test against the incumbents of its
 * operation, in cycles per call, the way the kernel review threads compared
 * them: one row per length and alignment, one column per variant, hot cache
 * and cold cache.
 *
 * This file is the command: its flags, then the parts in harness/cli/speed/
 * in turn (setup.c, clock.c, measure.c with evict.c, print.c). Speed is
 * never a verdict here (the gate decides what a slowdown means): the exit
 * status is 0, or 2 on bad usage or when the data file could not be
 * written (1 would read as a finding). */
#include "options.h"
#include "stop.h"
#include "speed/clock.h"
#include "speed/speed.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char help[] =
	"usage: memgate speed --variant=NEW,OLD1,OLD2,... [OPTIONS]\n"
	"  --variant=LIST   the variant under test first, then those to compare it with\n"
	"                   (all of one operation)\n"
	"  --lengths=LIST   lengths in bytes, K and M allowed (default 8,16,...,1M;\n"
	"                   page operations take 4096 only)\n"
	"  --rounds=N       best of N rounds per figure (default %d; --quick %d)\n"
	"  --data=FILE.tsv  also write variant, cache, align, len, cycles, ns rows,\n"
	"                   then a last line '# end: N rows'\n"
	"  --quick          a few lengths and rounds (for tests)\n"
	"  --hide-feature=LIST  act as if the CPU lacked these features\n"
	"Cycles are time-stamp counter ticks. Exit status: 0; 2 on bad usage or if\n"
	"--data could not be written. FILE is replaced only by a complete new one.\n";

enum { O_VARIANT = 1, O_LENGTHS, O_ROUNDS, O_DATA, O_QUICK, O_HIDE, O_HELP };

static const struct option opts[] = {
	{"variant", required_argument, NULL, O_VARIANT},
	{"lengths", required_argument, NULL, O_LENGTHS},
	{"rounds", required_argument, NULL, O_ROUNDS},
	{"data", required_argument, NULL, O_DATA},
	{"quick", no_argument, NULL, O_QUICK},
	{"hide-feature", required_argument, NULL, O_HIDE},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

static const size_t default_lengths[] = {
	8,	 16,	  32,	   64,	     128,      256,	  512,	   1 << 10,
	2 << 10, 4 << 10, 8 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
};
static const size_t quick_lengths[] = {8, 256, 4 << 10, 64 << 10};

/* The flags, checked before anything is measured or written. */
struct speed_flags {
	const char *names, *lengths, *data;
	unsigned long long rounds; /* 0: not given */
	int quick;
};

static int parse_flags(int argc, char **argv, struct speed_flags *f)
{
	int c;

	while ((c = mg_getopt(argc, argv, CMD, opts)) != -1) {
		if (c == O_VARIANT)
			f->names = optarg;
		else if (c == O_LENGTHS)
			f->lengths = optarg;
		else if (c == O_ROUNDS) {
			f->rounds = mg_parse_u64(CMD, "rounds", optarg);
			if (f->rounds < 1 || f->rounds > MAX_ROUNDS)
				mg_usage_error(CMD, "bad value '%s' for --rounds (want 1 to %d)",
					       optarg, MAX_ROUNDS);
		} else if (c == O_DATA)
			f->data = optarg;
		else if (c == O_QUICK)
			f->quick = 1;
		else if (c == O_HIDE)
			mg_parse_hidden_features(CMD, optarg);
		else if (c == O_HELP) {
			printf(help, DEFAULT_ROUNDS, QUICK_ROUNDS);
			return 0;
		}
	}
	mg_no_operands(argc, argv, CMD);
	if (!f->names)
		mg_usage_error(CMD, "--variant is required (the variant under test first, then "
				    "those to compare it with)");
	return 1;
}

static void configure(struct speed *s, const struct speed_flags *f)
{
	s->v = mg_select_variants(CMD, NULL, f->names, &s->nv);
	if (!s->nv)
		mg_usage_error(CMD, "--variant names no variant");
	mg_speed_check_variants(s);
	if (f->lengths)
		mg_speed_parse_lengths(s, f->lengths);
	else if (mg_speed_is_page_op(s->v[0]->op))
		mg_speed_set_lengths(s, (const size_t[]){PAGE}, 1);
	else if (f->quick)
		mg_speed_set_lengths(s, quick_lengths,
				     sizeof quick_lengths / sizeof quick_lengths[0]);
	else
		mg_speed_set_lengths(s, default_lengths,
				     sizeof default_lengths / sizeof default_lengths[0]);
	mg_speed_check_lengths(s);
	s->aligns = mg_speed_align_cases(s->v[0]->op, &s->nalign);
	s->rounds = f->rounds ? (unsigned)f->rounds : f->quick ? QUICK_ROUNDS : DEFAULT_ROUNDS;
}

/* --data goes to FILE.partial-PID first, made before the measuring (a bad
 * path is found then, not after), and becomes FILE by a rename once it is
 * complete: an earlier FILE stays whole until then, and a run stopped by a
 * signal leaves it as it was. */
static FILE *open_data(const char *path, char *partial, size_t size)
{
	struct stat st;
	FILE *data;

	/* What the rename would fail on, found now. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		mg_usage_error(CMD, "cannot write --data=%s: %s", path,
			       S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
	snprintf(partial, size, "%s.partial-%ld", path, (long)getpid());
	data = fopen(partial, "wx");
	if (!data)
		mg_usage_error(CMD, "cannot write --data=%s: %s", path, strerror(errno));
	mg_stop_remove_on_stop(partial);
	return data;
}

static int close_data(FILE *data, const char *partial, const char *path)
{
	int ok = !ferror(data);

	ok = fclose(data) == 0 && ok;
	if (ok && rename(partial, path) == 0) {
		printf("rows written to %s\n", path);
		return 0;
	}
	fprintf(stderr, "memgate speed: writing %s failed: %s\n", path, strerror(errno));
	unlink(partial);
	return MG_EXIT_USAGE;
}

int mg_cmd_speed(int argc, char **argv)
{
	struct speed_flags f = {NULL, NULL, NULL, 0, 0};
	struct speed s;
	FILE *data = NULL;
	char partial[4200];
	sigset_t held;
	int status;
	uint64_t t0 = now_ns();

	memset(&s, 0, sizeof s);
	mg_stop_install("memgate speed", 1);
	if (!parse_flags(argc, argv, &f))
		return 0;
	configure(&s, &f);
	if (f.data)
		data = open_data(f.data, partial, sizeof partial);
	mg_speed_prepare(&s);
	mg_speed_print_intro(&s);
	mg_speed_note_skipped(&s);
	mg_speed_measure_all(&s);
	for (int c = 0; c < CACHE_COUNT; c++)
		mg_speed_print_table(&s, (enum cache)c);
	mg_speed_print_summary(&s);
	printf("measured in %.1f s\n", (double)(now_ns() - t0) * 1e-9);
	if (!data)
		return 0;
	/* The rows, then the rename, with the stop signals held: a signal
	 * now finds the file written (it was measured) and ends the run after. */
	mg_stop_hold(&held);
	mg_speed_write_data(&s, data);
	mg_stop_remove_on_stop(NULL);
	status = close_data(data, partial, f.data);
	mg_stop_release(&held);
	return status;
}
