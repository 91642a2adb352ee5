#include "tally.h"
#include "check.h"
#include "isolate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Returns 0, with errno set, when the finding is not on disk. */
static int save_finding(const char *path, const struct mg_case *c, const struct mg_verdict *v,
			const char *replay)
{
	char words[512];
	FILE *f = fopen(path, "a");
	int ok;

	if (!f)
		return 0;
	mg_case_describe(c, words, sizeof words);
	ok = fprintf(f, "%s: %s\n  case: %s\n  replay: %s\n", mg_class_name(v->cls), v->detail,
		     words, replay) > 0;
	return fclose(f) == 0 && ok;
}

/* Disk first: if anything goes wrong after this, the finding is kept. */
static void record_finding(struct mg_tally *t, const char *path, const struct mg_case *c,
			   const struct mg_verdict *v)
{
	char replay[MG_REPLAY_MAX];

	mg_case_replay(c, replay, sizeof replay);
	if (!save_finding(path, c, v, replay) && !t->unsaved++) /* said once */
		fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
	t->failures++;
	t->classes |= MG_CLASS_BIT(v->cls);
	if (t->shown && c->seed == t->last_shown_seed)
		return;
	t->last_shown_seed = c->seed;
	if (t->shown < MG_FINDINGS_SHOWN) {
		struct mg_finding *f = &t->findings[t->shown++];
		f->cls = v->cls;
		memcpy(f->detail, v->detail, sizeof f->detail);
		memcpy(f->replay, replay, sizeof f->replay);
	}
}

static void record_warning(struct mg_tally *t, const struct mg_case *c, const struct mg_verdict *v)
{
	if (!t->warned_runs++)
		mg_case_replay(c, t->warned_replay, sizeof t->warned_replay);
	t->warnings |= v->warnings;
}

int mg_tally_case(const struct mg_case *c, void *arg)
{
	const struct mg_tally_run *run = arg;
	struct mg_tally *t = run->tally;
	struct mg_verdict v;

	t->current = *c;
	mg_check(c, &v);
	t->cases++;
	if (v.warnings)
		record_warning(t, c, &v);
	if (v.cls == MG_OK)
		return 0;
	record_finding(t, run->path, c, &v);
	/* Each timeout costs a full watchdog period: one is enough to know. */
	return t->shown >= run->max_failures || v.cls == MG_TIMEOUT;
}

void mg_tally_died(struct mg_tally *t, const char *path, int signo)
{
	struct mg_verdict v;

	t->died = signo ? signo : -1;
	t->state = MG_STAGE_DONE;
	if (!t->current.variant)
		return;
	if (signo) {
		mg_verdict_died(&v, signo);
	} else {
		v.cls = MG_CRASH;
		snprintf(v.detail, sizeof v.detail,
			 "the harness process exited early on this case");
	}
	record_finding(t, path, &t->current, &v);
}

int mg_tally_judge(const struct mg_tally *t, unsigned expect, char *out, size_t size)
{
	char want[48], got[48];

	if (!expect) {
		snprintf(out, size, "%s",
			 t->failures   ? "FAIL"
			 : t->warnings ? "PASS (with warnings)"
				       : "PASS");
		return t->failures == 0;
	}
	if (!t->failures) {
		snprintf(out, size, "PASS (known-bad: expected FAIL)");
		return 0;
	}
	if (t->classes & ~expect) {
		mg_class_mask_format(t->classes & ~expect, got, sizeof got);
		mg_class_mask_format(expect, want, sizeof want);
		snprintf(out, size, "FAIL (unexpected %s; expected %s)", got, want);
		return 0;
	}
	snprintf(out, size, "FAIL (expected)");
	return 1;
}

void mg_tally_print(const struct mg_tally *t, const char *title, const char *path)
{
	for (unsigned w = 1; w && w <= t->warnings; w <<= 1)
		if (t->warnings & w)
			printf("\n%s: warning: %s\n", title, mg_warning_text(w));
	if (t->warnings)
		printf("  in %llu runs; the first: %s\n", t->warned_runs, t->warned_replay);
	if (!t->shown)
		return;
	printf("\n%s: %llu failing run%s%s; %s %s\n", title, t->failures,
	       t->failures == 1 ? "" : "s", t->died ? " (then the harness died)" : "",
	       t->unsaved ? "NOT saved: could not write" : "saved in", path);
	for (unsigned i = 0; i < t->shown; i++)
		printf("  %s: %s\n    replay: %s\n", mg_class_name(t->findings[i].cls),
		       t->findings[i].detail, t->findings[i].replay);
}
