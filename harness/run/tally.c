#include "tally.h"
#include "check.h"
#include "fault.h"
#include "isolate.h"
#include "replay.h"
#include "record.h"
#include "stop.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Said once per stage: the next finding fails the same way. */
static int cannot_write(struct mg_tally *t, const char *path)
{
	if (!t->unsaved)
		fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
	return 0;
}

/* Appends to the findings file with the stop signals held (stop.h), so
 * that an interrupted run never leaves half a line. */
static int append(struct mg_tally *t, const char *path, const char *text)
{
	sigset_t saved;
	FILE *f;
	int ok;

	mg_stop_hold(&saved);
	f = fopen(path, "a");
	if (!f) {
		mg_stop_release(&saved);
		return cannot_write(t, path);
	}
	ok = fputs(text, f) >= 0;
	ok = fflush(f) == 0 && ok;
	ok = fclose(f) == 0 && ok;
	mg_stop_release(&saved);
	return ok ? 1 : cannot_write(t, path);
}

static int save_finding(struct mg_tally *t, const struct mg_tally_run *run,
			const struct mg_case *c, const struct mg_verdict *v, const char *replay)
{
	char words[512], text[MG_DETAIL_MAX + 2 * 512 + MG_REPLAY_MAX];
	int n = 0;

	if (!t->headed && run->header)
		n = snprintf(text, sizeof text, "%s\n", run->header);
	mg_case_describe(c, words, sizeof words);
	snprintf(text + n, sizeof text - (size_t)n, "%s: %s\n  case: %s\n  replay: %s\n",
		 mg_class_name(v->cls), v->detail, words, replay);
	if (!append(t, run->path, text))
		return 0;
	t->headed = 1;
	return 1;
}

int mg_tally_close(const struct mg_tally *t, const char *path, const char *how)
{
	char text[256];

	if (!t->headed)
		return 1;
	snprintf(text, sizeof text, "== end of run: %s\n", how);
	return append((struct mg_tally *)t, path, text);
}

static void set_error(struct mg_tally *t, const char *why)
{
	if (!t->error)
		snprintf(t->why, sizeof t->why, "%.150s", why);
	t->error = 1;
}

/* Disk first: if anything goes wrong after this, the finding is kept. A
 * finding that could not be saved leaves the stage unjudged. */
static void record_finding(const struct mg_tally_run *run, const struct mg_case *c,
			   const struct mg_verdict *v)
{
	struct mg_tally *t = run->tally;
	char replay[MG_REPLAY_MAX];

	mg_finding_replay(c, v, replay, sizeof replay);
	if (!save_finding(t, run, c, v, replay)) {
		t->unsaved = 1;
		set_error(t, "a finding could not be saved");
	}
	if (mg_format == MG_FORMAT_JSONL && !mg_record_finding(stdout, c, v, run->stage, NULL))
		set_error(t, "a finding record could not be written");
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
	if ((v->warnings & MG_WARN_ALIGNED_OVERREAD) &&
	    (!(t->warnings & MG_WARN_ALIGNED_OVERREAD) || v->overread.width > t->overread.width))
		t->overread = v->overread;
	t->warnings |= v->warnings;
}

static void record_unjudged(struct mg_tally *t, unsigned parts)
{
	t->unjudged |= parts;
	for (unsigned i = 0; i < MG_UNJUDGED_KINDS; i++)
		t->unjudged_cases[i] += (parts >> i) & 1;
}

int mg_tally_case(const struct mg_case *c, void *arg)
{
	const struct mg_tally_run *run = arg;
	struct mg_tally *t = run->tally;
	struct mg_verdict v;

	t->current = *c;
	t->call_limit_ms = mg_case_call_limit_ms(c);
	mg_call_watch(&t->in_call);
	mg_check(c, &v);
	mg_call_watch(NULL);
	if (v.cls == MG_ERROR) {
		set_error(t, v.detail);
		return 1;
	}
	t->cases++;
	if (v.warnings)
		record_warning(t, c, &v);
	if (v.unjudged)
		record_unjudged(t, v.unjudged);
	if (v.cls == MG_OK)
		return 0;
	record_finding(run, c, &v);
	/* Each timeout costs a full watchdog period: one is enough to know. */
	return t->shown >= run->max_failures || v.cls == MG_TIMEOUT;
}

void mg_tally_ended(const struct mg_tally_run *run, int status)
{
	struct mg_tally *t = run->tally;
	struct mg_verdict v;

	t->state = MG_STAGE_DONE;
	if (!t->current.variant) {
		set_error(t, "its process ended before the first case");
		return;
	}
	if (t->overdue)
		mg_verdict_unstopped(&v, t->call_limit_ms + MG_UNSTOPPED_SPARE_MS);
	else
		mg_verdict_ended(&v, status, t->in_call & 1);
	if (v.cls == MG_ERROR) {
		set_error(t, v.detail);
		return;
	}
	t->died = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
	record_finding(run, &t->current, &v);
}

int mg_tally_judge(const struct mg_tally *t, unsigned expect, char *out, size_t size)
{
	char want[48], got[48];

	if (!expect) {
		snprintf(out, size, "%s",
			 t->failures   ? "FAIL"
			 : t->warnings ? "PASS (with warnings)"
			 : t->unjudged ? "PASS (part not judged here)"
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
	if (t->warnings & MG_WARN_ALIGNED_OVERREAD) {
		char where[128];
		mg_overread_describe(&t->overread, where, sizeof where);
		printf("  aligned-over-read, the widest: %s\n", where);
	}
	if (t->warnings)
		printf("  in %llu runs; the first: %s\n", t->warned_runs, t->warned_replay);
	for (unsigned i = 0; i < MG_UNJUDGED_KINDS; i++)
		if (t->unjudged_cases[i])
			printf("\n%s: not judged here, in %llu case%s: %s\n", title,
			       t->unjudged_cases[i], t->unjudged_cases[i] == 1 ? "" : "s",
			       mg_unjudged_text(1u << i));
	if (!t->shown)
		return;
	printf("\n%s: %llu failing run%s%s; %s %s\n", title, t->failures,
	       t->failures == 1 ? "" : "s", t->died ? " (then the harness died)" : "",
	       t->unsaved ? "NOT saved: could not write" : "saved in", path);
	for (unsigned i = 0; i < t->shown; i++)
		printf("  %s: %s\n    replay: %s\n", mg_class_name(t->findings[i].cls),
		       t->findings[i].detail, t->findings[i].replay);
}
