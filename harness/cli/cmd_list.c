/* memgate list: the variant table, with what this CPU can run. */
#include "cpu.h"
#include "options.h"
#include "table.h"
#include "verdict.h"

#include <stdio.h>

static const char help[] =
	"usage: memgate list [--set=main|selftest|all] [--hide-feature=LIST] [--tsv]\n"
	"  --tsv  for scripts: one line per variant, tab-separated: name, op, arch,\n"
	"         entry point, needs, here, expect (the table's columns, no header),\n"
	"         convention (its own, docs/conventions.md; -: the C convention),\n"
	"         code (kernel: held to the kernel contract; else user)\n";

enum { O_SET = 1, O_HIDE, O_TSV, O_HELP };

static const struct option opts[] = {
	{"set", required_argument, NULL, O_SET},
	{"hide-feature", required_argument, NULL, O_HIDE},
	{"tsv", no_argument, NULL, O_TSV},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

static void format_contract(const struct mg_contract *k, char *out, size_t size)
{
	if (k->fixed_len)
		snprintf(out, size, "page (%zu, aligned)", k->fixed_len);
	else if (k->src_align == 1 && k->dst_align == 1 && k->len_multiple == 1)
		snprintf(out, size, "any");
	else
		snprintf(out, size, "src%%%u dst%%%u len%%%u", k->src_align, k->dst_align,
			 k->len_multiple);
}

static const char *ret_name(enum mg_ret ret)
{
	switch (ret) {
	case MG_RET_DST: return "dst";
	case MG_RET_DST_END: return "dst+n";
	case MG_RET_UNCOPIED: return "uncopied"; /* the user copies' count */
	default: return "void";
	}
}

static void print_variant(const struct mg_variant *v, int tsv)
{
	char contract[48], features[96] = "-", runs[128] = "runs", expect[128] = "pass";
	char needs[96];

	format_contract(&v->contract, contract, sizeof contract);
	if (v->features)
		mg_feature_format(v->features, features, sizeof features);
	if (mg_cpu_missing(v->features, needs, sizeof needs))
		snprintf(runs, sizeof runs, "SKIP (needs %s)", needs);
	if (v->expect == MG_EXPECT_MISALIGNED) {
		snprintf(expect, sizeof expect, "FAIL when watched: misaligned-access");
	} else if (v->expect) {
		char classes[80];
		mg_class_mask_format(v->expect, classes, sizeof classes);
		snprintf(expect, sizeof expect, "FAIL%s: %s",
			 v->expect & MG_EXPECT_ONLY_HUGE   ? " at 4 GiB+"
			 : v->expect & MG_EXPECT_ONLY_FULL ? " in the full sweep"
							   : "",
			 classes);
	}
	if (tsv) {
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v->name, mg_op_name(v->op), v->arch,
		       v->symbol, features, runs, expect, v->convention ? v->convention : "-",
		       v->contract.kernel & MG_KERNEL ? "kernel" : "user");
		return;
	}
	printf("%-34s %-10s %-7s %-38s %-6s %-20s %-17s %-22s %s\n", v->name, mg_op_name(v->op),
	       v->arch, v->symbol, ret_name(v->ret), contract, features, runs, expect);
	printf("%34s %s\n", "", v->about);
	if (v->convention)
		printf("%34s convention: %s\n", "", v->convention);
}

int mg_cmd_list(int argc, char **argv)
{
	const char *set = "main";
	size_t count;
	int c, tsv = 0;

	while ((c = mg_getopt(argc, argv, "list", opts)) != -1) {
		if (c == O_SET)
			set = optarg;
		else if (c == O_HIDE)
			mg_parse_hidden_features("list", optarg);
		else if (c == O_TSV)
			tsv = 1;
		else if (c == O_HELP) {
			fputs(help, stdout);
			return 0;
		}
	}
	mg_no_operands(argc, argv, "list");
	const struct mg_variant *const *v = mg_select_variants("list", set, NULL, &count);
	if (!tsv)
		printf("%-34s %-10s %-7s %-38s %-6s %-20s %-17s %-22s %s\n", "variant", "op",
		       "arch", "entry point", "return", "contract", "needs", "here", "expect");
	for (size_t i = 0; i < count; i++)
		print_variant(v[i], tsv);
	return 0;
}
