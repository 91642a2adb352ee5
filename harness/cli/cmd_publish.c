/* memgate publish: the message-passing run of one variant (run/publish.h,
 * docs/contract.md M1): how often a reader on another CPU, acquiring the
 * caller's release store after the routine returned, read bytes the
 * routine had not yet made visible. */
#include "cpu.h"
#include "options.h"
#include "publish.h"
#include "record.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
	"usage: memgate publish --variant=NAME [--len=N] [--rounds=R] [--format=text|jsonl]\n"
	"  --variant=NAME  the routine (any table)\n"
	"  --len=N         bytes a round (default 131072; a page routine's own length)\n"
	"  --rounds=R      rounds (default 20000)\n"
	"  --format=F      what stdout says: a line, or one publish record (docs/records.md)\n"
	"Each round runs the routine so that every byte of the buffer changes, then\n"
	"stores the round's number with release order; a reader pinned to another CPU\n"
	"acquires it and reads the buffer back. A stale byte means a store of the\n"
	"routine was not ordered before the release (on x86: a non-temporal store with\n"
	"no fence after it; the gate's store-order check). The count depends on the\n"
	"machine and the moment: 0 says only that this machine did not show it.\n"
	"Exit status: 0 no stale round, 1 some, 2 bad usage or it cannot run here.\n";

enum { O_VARIANT = 1, O_LEN, O_ROUNDS, O_FORMAT, O_HELP };

static const struct option opts[] = {
	{"variant", required_argument, NULL, O_VARIANT}, {"len", required_argument, NULL, O_LEN},
	{"rounds", required_argument, NULL, O_ROUNDS},	 {"format", required_argument, NULL, O_FORMAT},
	{"help", no_argument, NULL, O_HELP},		 {NULL, 0, NULL, 0},
};

static int report(const struct mg_variant *v, int ran, const struct mg_publish_result *r)
{
	const char *status = ran <= 0 ? (ran == 0 ? "n/a" : "error") : r->stale ? "stale" : "none";

	if (mg_format == MG_FORMAT_JSONL) {
		struct mg_json j;
		mg_json_start(&j, "publish");
		mg_json_string(&j, "variant", v->name);
		mg_json_string(&j, "arch", v->arch);
		mg_json_string(&j, "status", status);
		mg_json_uint(&j, "rounds", r->rounds);
		mg_json_uint(&j, "stale", r->stale);
		mg_json_string(&j, "reason", ran > 0 ? NULL : r->why);
		if (!mg_json_write(&j, stdout))
			return MG_EXIT_USAGE;
	} else if (ran <= 0) {
		printf("publish %s: %s: %s\n", v->name, ran == 0 ? "n/a" : "could not run", r->why);
	} else {
		printf("publish %s: %llu of %llu rounds stale (a reader on CPU %d acquired the release "
		       "of CPU %d and read a byte of the round before)\n",
		       v->name, r->stale, r->rounds, r->reader_cpu, r->writer_cpu);
	}
	return ran <= 0 ? MG_EXIT_USAGE : r->stale ? 1 : 0;
}

int mg_cmd_publish(int argc, char **argv)
{
	const struct mg_variant *v = NULL;
	size_t len = 128 << 10;
	unsigned long long rounds = 20000;
	struct mg_publish_result r;
	int o;

	while ((o = mg_getopt(argc, argv, "publish", opts)) != -1) {
		switch (o) {
		case O_VARIANT: v = mg_parse_variant("publish", optarg); break;
		case O_LEN: len = mg_parse_max_len("publish", optarg); break;
		case O_ROUNDS: rounds = mg_parse_positive("publish", "--rounds", optarg, 10000000); break;
		case O_FORMAT: mg_parse_format("publish", optarg); break;
		case O_HELP: fputs(help, stdout); return 0;
		}
	}
	mg_no_operands(argc, argv, "publish");
	if (!v)
		mg_usage_error("publish", "--variant=NAME is required (memgate list names them)");
	if (v->features & ~mg_cpu_features()) {
		char needs[96];
		mg_cpu_missing(v->features, needs, sizeof needs);
		mg_usage_error("publish", "%s needs %s, which this CPU lacks", v->name, needs);
	}
	return report(v, mg_publish(v, len, rounds, &r), &r);
}
