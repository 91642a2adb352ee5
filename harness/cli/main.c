/* memgate: differential, guard-paged verification of copy/move/clear routines. */
#include "case.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

int mg_cmd_list(int argc, char **argv);
int mg_cmd_verify(int argc, char **argv);
int mg_cmd_run(int argc, char **argv);
int mg_cmd_bench(int argc, char **argv);
int mg_cmd_encode(int argc, char **argv);
int mg_cmd_speed(int argc, char **argv);
int mg_cmd_publish(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *about;
} commands[] = {
	{"verify", mg_cmd_verify, "sweep every variant and print one table (the main job)"},
	{"run", mg_cmd_run, "replay one case and print its verdict"},
	{"list", mg_cmd_list, "list the variant table and what this CPU can run"},
	{"bench", mg_cmd_bench, "measure sweep throughput and harness overhead"},
	{"encode", mg_cmd_encode, "write the fuzz input for one case (seeds, regressions)"},
	{"speed", mg_cmd_speed, "time a variant against the incumbents of its operation"},
	{"publish", mg_cmd_publish, "count stale reads after the caller's release (store order)"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	fprintf(out, "usage: memgate COMMAND [OPTIONS]   (memgate COMMAND --help for options)\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].about);
}

int main(int argc, char **argv)
{
	mg_program = argv[0];
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? MG_EXIT_USAGE : 0;
	}
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fputs("memgate: unknown command '", stderr);
	mg_print_shown(stderr, argv[1]);
	fputs("' (valid: verify, run, list, bench, encode, speed, publish)\n", stderr);
	return MG_EXIT_USAGE;
}
