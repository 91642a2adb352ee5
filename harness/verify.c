/* Each variant is swept in a child process, so a variant that corrupts the
 * harness or kills it outright costs only its own row. Children report
 * through a shared mapping; findings go to disk before anywhere else. */
#include "verify.h"
#include "check.h"
#include "cpu.h"
#include "isolate.h"
#include "table.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FINDINGS_SHOWN 8
#define REPLAY_MAX     320

struct finding {
	enum mg_class cls;
	char detail[MG_DETAIL_MAX];
	char replay[REPLAY_MAX];
};

struct result {
	int done;		/* the child finished its sweep */
	int died;		/* the child was killed by this signal */
	struct mg_case current; /* the case being run, for when the child dies */
	unsigned long long cases, failures;
	unsigned classes; /* the classes it failed with */
	double seconds;
	unsigned warnings; /* enum mg_warning bits seen */
	unsigned long long warned_runs;
	char warned_replay[REPLAY_MAX]; /* the first run that warned */
	unsigned shown;
	uint64_t last_shown_seed; /* one case fails in each placement: show it once */
	struct finding findings[FINDINGS_SHOWN];
};

struct sweep_ctx {
	const struct mg_verify_opts *o;
	struct result *res;
};

static void findings_path(const struct mg_verify_opts *o, const struct mg_variant *v, char *out,
			  size_t size)
{
	snprintf(out, size, "%s/%s.txt", o->findings_dir, v->name);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void make_dirs(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0777);
			*p = '/';
		}
	mkdir(tmp, 0777);
}

static void save_finding(const struct mg_verify_opts *o, const struct mg_case *c,
			 const struct mg_verdict *v, const char *replay)
{
	char words[512], path[512];
	FILE *f;

	findings_path(o, c->variant, path, sizeof path);
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	mg_case_describe(c, words, sizeof words);
	fprintf(f, "%s: %s\n  case: %s\n  replay: %s\n", mg_class_name(v->cls), v->detail, words,
		replay);
	fclose(f);
}

/* Disk first: if anything goes wrong after this, the finding is kept. */
static void record_finding(const struct mg_verify_opts *o, struct result *r,
			   const struct mg_case *c, const struct mg_verdict *v)
{
	char replay[REPLAY_MAX];

	mg_case_replay(c, replay, sizeof replay);
	save_finding(o, c, v, replay);
	r->failures++;
	r->classes |= MG_CLASS_BIT(v->cls);
	if (r->shown && c->seed == r->last_shown_seed)
		return;
	r->last_shown_seed = c->seed;
	if (r->shown < FINDINGS_SHOWN) {
		struct finding *f = &r->findings[r->shown++];
		f->cls = v->cls;
		memcpy(f->detail, v->detail, sizeof f->detail);
		memcpy(f->replay, replay, sizeof f->replay);
	}
}

static void record_warning(struct result *r, const struct mg_case *c, const struct mg_verdict *v)
{
	if (!r->warned_runs++)
		mg_case_replay(c, r->warned_replay, sizeof r->warned_replay);
	r->warnings |= v->warnings;
}

static int on_case(const struct mg_case *c, void *arg)
{
	struct sweep_ctx *x = arg;
	struct result *r = x->res;
	struct mg_verdict v;

	r->current = *c;
	mg_check(c, &v);
	r->cases++;
	if (v.warnings)
		record_warning(r, c, &v);
	if (v.cls == MG_OK)
		return 0;
	record_finding(x->o, r, c, &v);
	/* Each timeout costs a full watchdog period: one is enough to know. */
	return r->shown >= x->o->max_failures || v.cls == MG_TIMEOUT;
}

static void run_child(const struct mg_verify_opts *o, const struct mg_variant *v,
		      struct result *res)
{
	struct sweep_ctx x = {o, res};
	char path[512];
	double t0 = now();

	make_dirs(o->findings_dir);
	findings_path(o, v, path, sizeof path);
	unlink(path);
	mg_sweep(v, o->profile, o->seed, on_case, &x);
	res->seconds = now() - t0;
	res->done = 1;
	_exit(0);
}

static int missing_features(const struct mg_variant *v, char *out, size_t size)
{
	unsigned missing = v->features & ~mg_cpu_features();

	if (!missing)
		return 0;
	mg_feature_format(missing, out, (unsigned)size);
	return 1;
}

static unsigned expected_classes(const struct mg_verify_opts *o, const struct mg_variant *v)
{
	return o->override_expect ? o->expect : v->expect;
}

/* PASS / FAIL (expected) / ...; returns 1 when the row is what is expected. */
static int row_status(unsigned expect, const struct result *r, char *out, size_t size)
{
	char want[48], got[48];

	if (!r->done && !r->died) {
		snprintf(out, size, "FAIL (harness exited early)");
		return 0;
	}
	if (!expect) {
		snprintf(out, size,
			 r->failures   ? "FAIL"
			 : r->warnings ? "PASS (with warnings)"
				       : "PASS");
		return r->failures == 0;
	}
	if (!r->failures) {
		snprintf(out, size, "PASS (known-bad: expected FAIL)");
		return 0;
	}
	if (r->classes & ~expect) {
		mg_class_mask_format(r->classes & ~expect, got, sizeof got);
		mg_class_mask_format(expect, want, sizeof want);
		snprintf(out, size, "FAIL (unexpected %s; expected %s)", got, want);
		return 0;
	}
	snprintf(out, size, "FAIL (expected)");
	return 1;
}

static void print_header(void)
{
	printf("%-34s %-10s %-7s %-32s %10s %8s  %s\n", "variant", "op", "arch", "status", "cases",
	       "time", "first finding");
}

static void print_row(const struct mg_variant *v, const char *status, const struct result *r)
{
	char first[96] = "-";

	if (r && r->shown)
		snprintf(first, sizeof first, "%s: %.70s", mg_class_name(r->findings[0].cls),
			 r->findings[0].detail);
	if (r)
		printf("%-34s %-10s %-7s %-32s %10llu %7.1fs  %s\n", v->name, mg_op_name(v->op),
		       v->arch, status, r->cases, r->seconds, first);
	else
		printf("%-34s %-10s %-7s %-32s %10s %8s  %s\n", v->name, mg_op_name(v->op), v->arch,
		       status, "-", "-", first);
	fflush(stdout);
}

static void print_warnings(const struct mg_variant *v, const struct result *r)
{
	for (unsigned w = 1; w && w <= r->warnings; w <<= 1)
		if (r->warnings & w)
			printf("\n%s: warning: %s\n", v->name, mg_warning_text(w));
	if (r->warnings)
		printf("  in %llu runs; the first: %s\n", r->warned_runs, r->warned_replay);
}

static void print_findings(const struct mg_variant *v, const struct result *r, const char *dir)
{
	print_warnings(v, r);
	if (!r->shown)
		return;
	printf("\n%s: %llu failing run%s%s; saved in %s/%s.txt\n", v->name, r->failures,
	       r->failures == 1 ? "" : "s", r->died ? " (then the harness died)" : "", dir,
	       v->name);
	for (unsigned i = 0; i < r->shown; i++)
		printf("  %s: %s\n    replay: %s\n", mg_class_name(r->findings[i].cls),
		       r->findings[i].detail, r->findings[i].replay);
}

enum row_state { ROW_PENDING, ROW_RUNNING, ROW_FINISHED, ROW_SKIPPED };

struct runner {
	const struct mg_verify_opts *o;
	struct result *results;
	pid_t *pids;
	double *started;
	enum row_state *state;
	size_t running, next_print;
	size_t passed, xfail, skipped, unexpected;
};

/* The child died on its current case: that case is a crash finding. */
static void report_death(const struct mg_verify_opts *o, struct result *r, int signo)
{
	struct mg_verdict v;

	r->died = signo;
	if (!r->current.variant)
		return;
	mg_verdict_died(&v, signo);
	record_finding(o, r, &r->current, &v);
}

static void reap_one(struct runner *rn)
{
	int status;
	pid_t pid = wait(&status);

	if (pid < 0)
		return;
	for (size_t i = 0; i < rn->o->count; i++)
		if (rn->pids[i] == pid && rn->state[i] == ROW_RUNNING) {
			rn->state[i] = ROW_FINISHED;
			if (!rn->results[i].done)
				rn->results[i].seconds = now() - rn->started[i];
			if (WIFSIGNALED(status))
				report_death(rn->o, &rn->results[i], WTERMSIG(status));
			rn->running--;
		}
}

static void start_child(struct runner *rn, size_t i)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("memgate: fork");
		exit(3);
	}
	if (pid == 0)
		run_child(rn->o, rn->o->variants[i], &rn->results[i]);
	rn->pids[i] = pid;
	rn->started[i] = now();
	rn->state[i] = ROW_RUNNING;
	rn->running++;
}

static void print_skipped(struct runner *rn, const struct mg_variant *v)
{
	char status[160], needs[96];

	missing_features(v, needs, sizeof needs);
	snprintf(status, sizeof status, "SKIP (needs %s)", needs);
	print_row(v, status, NULL);
	rn->skipped++;
}

/* Prints finished rows in table order, as far as they go. */
static void print_ready_rows(struct runner *rn)
{
	char status[160];

	for (; rn->next_print < rn->o->count; rn->next_print++) {
		size_t i = rn->next_print;
		const struct mg_variant *v = rn->o->variants[i];
		if (rn->state[i] == ROW_SKIPPED) {
			print_skipped(rn, v);
			continue;
		}
		if (rn->state[i] != ROW_FINISHED)
			return;
		unsigned expect = expected_classes(rn->o, v);
		int fine = row_status(expect, &rn->results[i], status, sizeof status);
		print_row(v, status, &rn->results[i]);
		rn->unexpected += !fine;
		rn->passed += fine && !expect;
		rn->xfail += fine && expect;
	}
}

static void run_all(struct runner *rn)
{
	char needs[96];

	for (size_t i = 0; i < rn->o->count; i++) {
		if (missing_features(rn->o->variants[i], needs, sizeof needs)) {
			rn->state[i] = ROW_SKIPPED;
			continue;
		}
		while (rn->running >= rn->o->jobs) {
			reap_one(rn);
			print_ready_rows(rn);
		}
		start_child(rn, i);
		print_ready_rows(rn);
	}
	while (rn->running) {
		reap_one(rn);
		print_ready_rows(rn);
	}
	print_ready_rows(rn);
}

int mg_verify(const struct mg_verify_opts *o)
{
	size_t bytes = (o->count ? o->count : 1) * sizeof(struct result);
	struct runner rn = {.o = o};

	rn.results = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	rn.pids = calloc(o->count + 1, sizeof *rn.pids);
	rn.state = calloc(o->count + 1, sizeof *rn.state);
	rn.started = calloc(o->count + 1, sizeof *rn.started);
	if (rn.results == MAP_FAILED || !rn.pids || !rn.state || !rn.started) {
		perror("memgate: verify");
		return 3;
	}
	print_header();
	run_all(&rn);
	for (size_t i = 0; i < o->count; i++)
		if (rn.state[i] == ROW_FINISHED)
			print_findings(o->variants[i], &rn.results[i], o->findings_dir);
	printf("\n%zu variants: %zu passed, %zu failed as expected, %zu skipped, %zu unexpected\n",
	       o->count, rn.passed, rn.xfail, rn.skipped, rn.unexpected);
	munmap(rn.results, bytes);
	free(rn.pids);
	free(rn.state);
	free(rn.started);
	return rn.unexpected ? 1 : 0;
}
