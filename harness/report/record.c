#include "record.h"
#include "abi.h"
#include "cpu.h"
#include "fault.h"
#include "replay.h"
#include "stop.h"
#include "table.h"

#include <string.h>

enum mg_format mg_format = MG_FORMAT_TEXT;

void mg_json_case(struct mg_json *j, const char *key, const struct mg_case *c)
{
	mg_json_open_object(j, key);
	mg_json_uint(j, "len", c->len);
	mg_json_uint(j, "src_align", c->src_align);
	mg_json_uint(j, "dst_align", c->dst_align);
	mg_json_bool(j, "overlap", c->overlap);
	mg_json_int(j, "dist", c->dist);
	mg_json_int(j, "value", c->value);
	mg_json_uint(j, "seed", c->seed);
	mg_json_string(j, "fill", mg_fill_name(mg_case_fill(c)) ? mg_fill_name(mg_case_fill(c)) : "pool");
	mg_json_string(j, "place", mg_place_name(c->place));
	mg_json_bool(j, "src_above", c->src_above);
	mg_json_bool(j, "oracle", c->oracle);
	mg_json_uint(j, "stack_offset", c->stack_offset);
	mg_json_string(j, "fpenv", mg_abi_fpenv_name(c->fpenv));
	mg_json_uint(j, "vl", c->vl);
	mg_json_uint(j, "tag", c->tag);
	mg_json_string(j, "spot", mg_spot_name(c->spot));
	mg_json_uint(j, "spot_arg", c->spot_arg);
	mg_json_bool(j, "interrupt", c->interrupt);
	mg_json_uint(j, "threads", c->threads);
	if (c->user_fault)
		mg_json_uint(j, "fault_at", c->fault_at);
	else
		mg_json_null(j, "fault_at");
	mg_json_close_object(j);
}

static void hex(struct mg_json *j, const char *key, int has, unsigned long long value)
{
	char text[24];

	/* A value the class has not got was never set: do not even read it. */
	if (!has) {
		mg_json_string(j, key, NULL);
		return;
	}
	snprintf(text, sizeof text, "0x%llx", value);
	mg_json_string(j, key, text);
}

static void integer(struct mg_json *j, const char *key, int has, long long value)
{
	if (has)
		mg_json_int(j, key, value);
	else
		mg_json_null(j, key);
}

/* The fields of the verdict; null where the class has none. */
static void verdict_fields(struct mg_json *j, const struct mg_verdict *v)
{
	unsigned has = v->has;
	int where = (has & MG_HAS_WHERE) != 0, byte = (has & MG_HAS_BYTE) != 0;

	mg_json_string(j, "buffer", where ? mg_buffer_name(v->buffer) : NULL);
	mg_json_string(j, "side", where ? mg_side_name(v->side) : NULL);
	integer(j, "distance", where, v->distance);
	integer(j, "offset", where, v->offset);
	mg_json_string(j, "access", has & MG_HAS_ACCESS ? mg_access_name(v->access) : NULL);
	mg_json_string(j, "rule", has & MG_HAS_RULE ? v->rule : NULL);
	hex(j, "old", has & MG_HAS_VALUES, v->old_value);
	hex(j, "new", has & MG_HAS_VALUES, v->new_value);
	mg_json_string(j, "signal", has & MG_HAS_SIGNAL ? mg_signal_name(v->signo) : NULL);
	mg_json_bool(j, "died", (has & MG_HAS_SIGNAL) && v->died);
	mg_json_string(j, "pc", has & MG_HAS_PC ? v->pc : NULL);
	hex(j, "address", has & MG_HAS_ADDRESS, v->address);
	integer(j, "index", byte, v->index);
	integer(j, "got", byte, v->got);
	integer(j, "want", byte, v->want);
	integer(j, "exit_status", (has & MG_HAS_EXIT) && v->exit_status >= 0, v->exit_status);
	mg_json_string(j, "called", has & MG_HAS_CALLED ? v->called : NULL);
	mg_json_bool(j, "memcheck", v->memcheck);
}

static void overread_fields(struct mg_json *j, const struct mg_overread *r)
{
	mg_json_string(j, "buffer", mg_buffer_name((enum mg_buffer)r->buffer));
	mg_json_string(j, "side", mg_side_name((enum mg_side)r->side));
	mg_json_int(j, "distance", r->distance);
	mg_json_uint(j, "width", r->width);
}

void mg_json_warnings(struct mg_json *j, unsigned bits, const struct mg_overread *overread)
{
	mg_json_open_array(j, "warnings");
	for (unsigned w = 1; w && w <= bits; w <<= 1)
		if (bits & w) {
			mg_json_open_object(j, NULL);
			mg_json_string(j, "name", mg_warning_name(w));
			mg_json_string(j, "text", mg_warning_text(w));
			if (w == MG_WARN_ALIGNED_OVERREAD)
				overread_fields(j, overread);
			mg_json_close_object(j);
		}
	mg_json_close_array(j);
}

void mg_json_unjudged(struct mg_json *j, unsigned bits, const unsigned long long *cases)
{
	mg_json_open_array(j, "not_judged");
	for (unsigned i = 0; i < MG_UNJUDGED_KINDS; i++) {
		unsigned part = 1u << i;
		if (!(bits & part))
			continue;
		mg_json_open_object(j, NULL);
		mg_json_string(j, "name", mg_unjudged_name(part));
		mg_json_string(j, "check", mg_unjudged_check(part));
		if (cases)
			mg_json_uint(j, "cases", cases[i]);
		mg_json_string(j, "text", mg_unjudged_text(part));
		mg_json_close_object(j);
	}
	mg_json_close_array(j);
}

static void variant_fields(struct mg_json *j, const struct mg_case *c)
{
	mg_json_string(j, "variant", c->variant->name);
	mg_json_string(j, "op", mg_op_name(c->variant->op));
	mg_json_string(j, "arch", c->variant->arch);
	if (c->variant->convention)
		mg_json_string(j, "convention", c->variant->convention);
	if (mg_cpu_model())
		mg_json_string(j, "cpu_model", mg_cpu_model());
}

void mg_record_finding_build(struct mg_json *j, const struct mg_case *c, const struct mg_verdict *v,
			     const char *stage, const char *input)
{
	char text[MG_DETAIL_MAX + 128];
	struct mg_argv replay = {.argc = 0};

	mg_json_start(j, "finding");
	variant_fields(j, c);
	mg_json_string(j, "class", mg_class_name(v->cls));
	mg_json_string(j, "level", "error");
	mg_json_string(j, "detail", v->detail);
	mg_finding_signature(c, v, text, sizeof text);
	mg_json_string(j, "signature", text);
	mg_verdict_site(v, text, sizeof text);
	mg_json_string(j, "site", text);
	verdict_fields(j, v);
	if (v->cls == MG_ALIGNED_OVERREAD)
		mg_json_uint(j, "width", v->overread.width);
	mg_json_warnings(j, v->warnings, &v->overread);
	mg_json_unjudged(j, v->unjudged, NULL);
	mg_json_case(j, "case", c);
	mg_json_string(j, "stage", stage);
	mg_finding_replay_argv(c, v, &replay);
	mg_json_open_array(j, "replay");
	for (int i = 0; i < replay.argc; i++)
		mg_json_string(j, NULL, replay.argv[i]);
	mg_json_close_array(j);
	mg_json_string(j, "input", input);
}

int mg_record_finding(FILE *out, const struct mg_case *c, const struct mg_verdict *v,
		      const char *stage, const char *input)
{
	struct mg_json j;

	mg_record_finding_build(&j, c, v, stage, input);
	return mg_json_write(&j, out);
}

int mg_record_case(FILE *out, const struct mg_case *c, const struct mg_verdict *v,
		   const char *stage, const char *input, int as_expected)
{
	struct mg_json j;
	int failed = v->cls != MG_OK;

	mg_json_start(&j, "case");
	mg_json_string(&j, "input", input);
	variant_fields(&j, c);
	mg_json_string(&j, "class", mg_class_name(v->cls));
	mg_json_string(&j, "level", failed ? "error" : v->warnings ? "warning" : "none");
	mg_json_bool(&j, "as_expected", as_expected);
	mg_json_warnings(&j, v->warnings, &v->overread);
	mg_json_unjudged(&j, v->unjudged, NULL);
	mg_json_case(&j, "case", c);
	mg_json_string(&j, "stage", stage);
	if (!mg_json_write(&j, out))
		return 0;
	return !failed || mg_record_finding(out, c, v, stage, input);
}

int mg_record_error(FILE *out, const char *stage, const char *variant, const char *reason)
{
	struct mg_json j;

	mg_json_start(&j, "error");
	mg_json_string(&j, "reason", reason);
	mg_json_string(&j, "stage", stage);
	mg_json_string(&j, "variant", variant);
	return mg_json_write(&j, out);
}

int mg_interrupted(const char *stage, const char *variant, const char *where)
{
	char why[64];

	if (mg_format == MG_FORMAT_JSONL) {
		snprintf(why, sizeof why, "interrupted by %s", mg_signal_name(mg_stop_signal()));
		mg_record_error(stdout, stage, variant, why);
	}
	return mg_stop_say(where);
}

int mg_record_summary(FILE *out, const struct mg_summary *s)
{
	struct mg_json j;

	mg_json_start(&j, "summary");
	mg_json_string(&j, "command", s->command);
	mg_json_bool(&j, "complete", 1);
	mg_json_uint(&j, "cases", s->cases);
	mg_json_uint(&j, "passed", s->passed);
	mg_json_uint(&j, "failed", s->failed);
	mg_json_uint(&j, "errors", s->errors);
	mg_json_uint(&j, "skipped", s->skipped);
	return mg_json_write(&j, out);
}

int mg_stdout_ok(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 1;
	fprintf(stderr, "memgate: could not judge: writing the output failed\n");
	return 0;
}
