/* The main job. Each variant is swept in a child process of its own, so a
 * variant that corrupts the harness or kills it costs only its own row. The
 * huge-length check runs in one more child, for all variants in turn: its
 * mappings take seconds to warm up, so it pays that once. Children report
 * through shared memory (struct mg_tally); findings go to disk first. */
#include "verify.h"
#include "cpu.h"
#include "fault.h"
#include "finding.h"
#include "huge.h"
#include "interrupt.h"
#include "thread.h"
#include "interrupts.h"
#include "isolate.h"
#include "threads.h"
#include "spots.h"
#include "stop.h"
#include "record.h"
#include "rng.h"
#include "table.h"
#include "tally.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct result {
	struct mg_tally sweep, huge;
};

/* Shared with the huge child: where it is, why it could not run, and what
 * the whole stage took (its set-up included). */
struct huge_control {
	size_t next;
	char why[160];
	int na; /* why is the address space's: n/a, not an error (mg_huge_na) */
	unsigned long long cases;
	double seconds;
};

/* What the parent knows of a running child's current call. */
struct call_watch {
	const struct mg_tally *t; /* whose flag */
	int seq;	  /* the child's call flag when last seen */
	double cpu_since; /* the child's CPU ms when it changed */
};

struct runner {
	const struct mg_verify_opts *o;
	struct result *results;
	struct huge_control *huge;
	pid_t *pids; /* sweep children, by row */
	struct call_watch *watches, huge_watch; /* theirs, and the huge child's */
	double *started;
	int *skipped; /* the CPU lacks a feature: neither stage runs */
	pid_t huge_pid;
	size_t running, next_print;
	size_t passed, xfail, skipped_rows, unexpected, errors;
	unsigned long long cases;
	char first_error[200];
	int write_failed; /* a record could not be written */
};

/* Who wrote a part of a findings file: the time and the parent's pid. */
static char run_stamp[96];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void findings_path(const struct mg_verify_opts *o, const struct mg_variant *v, int huge,
			  char *out, size_t size)
{
	snprintf(out, size, "%s/%s%s.txt", o->findings_dir, v->name, huge ? "-4gib" : "");
}

/* The first line of this run's part of a stage's findings file. */
static void stage_header(const struct mg_verify_opts *o, const struct mg_variant *v, int huge,
			 char *out, size_t size)
{
	snprintf(out, size, "== memgate verify run of %s: %s, %s (profile %s, seed %llu)", run_stamp,
		 v->name, huge ? "lengths of 2 GiB and more" : "sweep and placements",
		 mg_profile_name(o->profile), (unsigned long long)o->seed);
}

static void stamp_run(void)
{
	time_t t = time(NULL);
	struct tm tm;
	char when[40] = "an unknown time";

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(run_stamp, sizeof run_stamp, "%s, pid %ld", when, (long)getpid());
}

static unsigned expected_classes(const struct mg_verify_opts *o, const struct mg_variant *v)
{
	/* A misaligned self-test passes here; the watch around verify fails it. */
	unsigned expect = (o->override_expect ? o->expect : v->expect) & ~MG_EXPECT_MISALIGNED;

	if (!(expect & MG_EXPECT_ONLY_FULL))
		return expect;
	return o->profile == MG_PROFILE_FULL ? expect & ~MG_EXPECT_ONLY_FULL : 0;
}

/* The huge check is for the copy and set routines, and pointless for one
 * that already fails the sweep by design. */
static int huge_applies(const struct mg_verify_opts *o, const struct mg_variant *v)
{
	unsigned expect = expected_classes(o, v);

	if (!o->huge || (expect && !(expect & MG_EXPECT_ONLY_HUGE)) ||
	    (v->expect & MG_EXPECT_ONLY_FULL))
		return 0;
	return mg_op_takes_huge(v->op);
}

/* Why a row's huge stage is n/a: a 32-bit build has huge cases for memmove
 * alone (mg_huge_applies); else the address space's reason. */
static const char *huge_na_why(const struct runner *rn, size_t row)
{
	if (!mg_huge_applies(rn->o->variants[row]->op))
		return "lengths of 4 GiB and more need a 64-bit size_t";
	return rn->huge->why;
}

/* ---- the stages, in their children --------------------------------------- */

/* A sweep within a budget (--sweep-seconds): every length runs, once with
 * separate buffers and, for memmove, once for each direction of overlap;
 * of the other cases, the share that the budget allows, chosen by each
 * case's seed, so the cut is spread evenly over every length, alignment and
 * distance, and each case run is exactly the one the whole sweep has. The
 * placements share the budget with the sweep: their cases are chosen the
 * same way.
 *
 * The share is measured, not modelled: a case's cost grows with its length
 * in ways no fixed weight foresees (natively or under qemu). So a first pass
 * runs every length's own cases, and only those: they run whatever the
 * budget, and are no fair sample of the rest (one per length and kind, they
 * lean to the long lengths, and the first pays for setting the sandbox up).
 * The second runs 1 in SAMPLE_EVERY of the rest, by seed, over the whole
 * sweep: what it took says what the rest would cost. Each later pass (up to
 * MAX_PASSES in all) takes the next seeds, as many as TAKE of the time left
 * allows at the cost per seed the pass before it measured. TAKE stays short
 * of 1 because that measure is rough (a sparse pass costs differently per
 * case than a dense one); what the sweep leaves goes to the checks after it
 * (the gate's fuzzing). A pass that meets the budget's end stops there, so
 * only that pass's seeds are cut unevenly; with --sweep-floor, not before
 * the floor's share of the cases has run. */
#define SAMPLE_EVERY 16
#define MAX_PASSES   4
#define TAKE	     0.8

struct budget {
	struct mg_tally_run *run;
	double t0, seconds;
	double from, below; /* this pass runs the cases whose draw is in [from, below) */
	int own_only;	    /* the first pass: every length's own cases, only they */
	int stopped;	    /* a case ended a pass early (failures, a timeout) */
	int out_of_time;    /* a pass of sampled cases met the budget's end */
	unsigned long long planned, walked;
	unsigned long long floor; /* cases that run even past the budget's end */
	size_t last_len;
	unsigned kinds_run; /* bit per kind_of() run at this length */
};

/* Every length runs once for each kind: with separate buffers, each
 * direction of overlap (where a copy in the wrong direction shows), and a
 * user copy's user buffer faulting (docs/usercopy.md). */
static int kind_of(const struct mg_case *c)
{
	if (c->user_fault)
		return 4;
	return c->overlap ? 2 + (c->dist > 0) - (c->dist < 0) : 0;
}

/* A case's draw in [0, 1), from its seed: the same in every pass. */
static double draw_of(const struct mg_case *c)
{
	return (double)(mg_mix64(c->seed) >> 11) * 0x1p-53;
}

/* Whether this is the first case of its kind at its length (in the order
 * the sweep gives them, the same in every pass). */
static int first_of_kind(struct budget *b, const struct mg_case *c)
{
	unsigned kind = 1u << kind_of(c);
	int first;

	if (c->len != b->last_len)
		b->kinds_run = 0;
	b->last_len = c->len;
	first = !(b->kinds_run & kind);
	b->kinds_run |= kind;
	return first;
}

static int count_case(const struct mg_case *c, void *ctx)
{
	(void)c;
	((struct budget *)ctx)->planned++;
	return 0;
}

/* Whether the budget is spent and the floor's cases have run: a sweep cut
 * below its floor could not be judged (the gate's plan), so the caller who
 * asks for one takes the overrun instead. */
static int past_budget(const struct budget *b)
{
	return now() - b->t0 >= b->seconds && b->run->tally->cases >= b->floor;
}

static int budgeted_case(const struct mg_case *c, void *ctx)
{
	struct budget *b = ctx;
	int own = first_of_kind(b, c);
	double draw;

	/* At the budget's end a pass of sampled cases stops (checked every
	 * 256 cases), once the floor's cases have run. */
	if (b->walked++ % 256 == 0 && !b->own_only && past_budget(b)) {
		b->out_of_time = 1;
		return 1;
	}
	if (own != b->own_only)
		return 0;
	draw = draw_of(c);
	if (!own && (draw < b->from || draw >= b->below))
		return 0;
	b->stopped = mg_tally_case(c, b->run);
	return b->stopped;
}

/* Whether the placements still run after the sweep: not once it stopped
 * on its failures or could not judge. */
static int placements_wanted(const struct mg_verify_opts *o, const struct mg_tally *t)
{
	return t->failures < o->max_failures && !t->error && !t->died;
}

/* The situations the harness makes (docs/contract.md, S1, S2), each a
 * stage of its own after the placements, in the sweep's record under its
 * own fields (docs/records.md). */
struct situation {
	const char *stage, *cases_field, *seconds_field, *reason_field;
	const char *not_run; /* why it did not run when something came first */
	const struct mg_situation *made; /* the engine's unit that makes it */
	void (*sweep)(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
		      mg_case_fn fn, void *ctx);
};

static const struct situation situations[MG_SITUATIONS] = {
	{"interrupts", "interrupted_cases", "interrupted_seconds", "interrupts_reason",
	 "the sweep or the placements found something, or stopped, first", &mg_situation_interrupt,
	 mg_interrupts_sweep},
	{"threads", "threads_cases", "threads_seconds", "threads_reason",
	 "the sweep, the placements or the interrupts found something, or stopped, first",
	 &mg_situation_threads, mg_threads_sweep},
};

/* Whether a situation's stage runs: only on a routine the stages before
 * found nothing in. It is there for what they cannot see, and its cases
 * cost tens (threads) to a thousand (interrupts) plain ones. */
static int situation_wanted(const struct mg_tally *t)
{
	return t->failures == 0 && !t->error && !t->died;
}

/* --max-len: a case longer than it is not among the run's cases (not run,
 * not planned), wherever it comes from. */
struct capped {
	mg_case_fn fn;
	void *ctx;
	size_t max_len;
};

static int capped_case(const struct mg_case *c, void *ctx)
{
	const struct capped *k = ctx;

	return c->len > k->max_len ? 0 : k->fn(c, k->ctx);
}

/* The profile's cases, then, unless `fn` stopped them, those around the
 * thresholds the caller named. */
static void sweep_cases(const struct mg_verify_opts *o, const struct mg_variant *v, mg_case_fn fn,
			void *ctx)
{
	struct capped k = {fn, ctx, o->max_len};

	if (o->max_len) {
		fn = capped_case;
		ctx = &k;
	}
	if (!mg_sweep(v, o->profile, o->seed, fn, ctx))
		mg_sweep_thresholds(v, o->profile, o->seed, &o->thresholds, fn, ctx);
}

static void placement_cases(const struct mg_verify_opts *o, const struct mg_variant *v,
			    mg_case_fn fn, void *ctx)
{
	struct capped k = {fn, ctx, o->max_len};

	if (o->max_len)
		mg_placements_sweep(v, o->profile, o->seed, capped_case, &k);
	else
		mg_placements_sweep(v, o->profile, o->seed, fn, ctx);
}

static void situation_cases(const struct mg_verify_opts *o, const struct mg_variant *v,
			    size_t which, mg_case_fn fn, void *ctx)
{
	struct capped k = {fn, ctx, o->max_len};

	if (o->max_len)
		situations[which].sweep(v, o->profile, o->seed, capped_case, &k);
	else
		situations[which].sweep(v, o->profile, o->seed, fn, ctx);
}

/* Counts the sweep's, the placements' and the situations' cases. */
static void plan(const struct mg_verify_opts *o, const struct mg_variant *v, struct budget *b)
{
	sweep_cases(o, v, count_case, b);
	placement_cases(o, v, count_case, b);
	for (size_t i = 0; i < MG_SITUATIONS; i++)
		situation_cases(o, v, i, count_case, b);
}

/* A situation's stage, whole: its few cases are not cut by a budget. */
static void situation_stage(const struct mg_verify_opts *o, const struct mg_variant *v,
			    const struct mg_tally_run *sweep, size_t which)
{
	const struct situation *s = &situations[which];
	struct mg_tally_run run = *sweep;
	struct mg_tally *t = sweep->tally;
	struct mg_situation_tally *st = &t->situations[which];
	unsigned long long cases = t->cases, failures = t->failures;
	double t0 = now();

	run.stage = s->stage;
	if (mg_op_is_user(v->op)) {
		snprintf(st->why, sizeof st->why,
			 "a user copy runs alone and uninterrupted: its faults are resumed by the "
			 "harness's handler, not emulated in the situations yet (docs/usercopy.md)");
		st->state = MG_SITUATION_NA;
		return;
	}
	if (!s->made->possible(st->why, sizeof st->why)) {
		st->state = MG_SITUATION_NA;
		return;
	}
	if (!situation_wanted(t))
		return;
	situation_cases(o, v, which, mg_tally_case, &run);
	st->cases = t->cases - cases;
	st->seconds = now() - t0;
	st->state = t->failures > failures ? MG_SITUATION_FAIL : MG_SITUATION_PASS;
}

static void situation_stages(const struct mg_verify_opts *o, const struct mg_variant *v,
			     const struct mg_tally_run *sweep)
{
	for (size_t i = 0; i < MG_SITUATIONS; i++)
		situation_stage(o, v, sweep, i);
}

/* One pass over the sweep and then the placements (the first pass, of
 * every length's own cases, also runs the situations' stages). Returns 0 if a
 * case, or the budget's end, ended it early: no further pass runs after
 * that. */
static int budgeted_pass(const struct mg_verify_opts *o, const struct mg_variant *v,
			 struct mg_tally_run *sweep, struct mg_tally_run *placed, struct budget *b)
{
	int swept_whole;

	b->last_len = 1;
	b->kinds_run = 0;
	b->stopped = 0;
	b->run = sweep;
	sweep_cases(o, v, budgeted_case, b);
	swept_whole = !b->stopped;
	if (b->out_of_time || !placements_wanted(o, sweep->tally))
		return 0;
	b->stopped = 0;
	b->run = placed;
	placement_cases(o, v, budgeted_case, b);
	if (b->own_only && !b->stopped) {
		/* The situations run whole, outside the budget: the gate plans
		 * their time apart (gate_plan.Plan.situations), and the clock
		 * the sample is cut by must not have spent it. */
		double situations_start = now();

		situation_stages(o, v, sweep);
		b->t0 += now() - situations_start;
	}
	return swept_whole && !b->stopped && !b->out_of_time;
}

/* The cases `share` of `planned` is, rounded up: the caller's test of the
 * share run (cases / planned >= share) then holds. */
static unsigned long long floor_cases(double share, unsigned long long planned)
{
	double want = share * (double)planned;
	unsigned long long cases = (unsigned long long)want;

	return cases + (want > (double)cases);
}

static void budgeted_sweep(const struct mg_verify_opts *o, const struct mg_variant *v,
			   struct mg_tally_run *sweep, struct mg_tally_run *placed)
{
	struct budget b = {.seconds = o->sweep_seconds, .own_only = 1};
	double walk, started, per_draw, left;

	b.t0 = now();
	plan(o, v, &b);
	sweep->tally->planned = b.planned;
	b.floor = floor_cases(o->sweep_floor, b.planned);
	walk = now() - b.t0; /* what one walk costs, checking nothing */
	if (!budgeted_pass(o, v, sweep, placed, &b))
		return;
	/* What the budget cannot cut, for a caller that plans one (the gate):
	 * the situations' seconds are not in it (their own fields). */
	sweep->tally->own_cases = sweep->tally->cases;
	sweep->tally->own_seconds = now() - b.t0;
	b.own_only = 0;
	b.below = 1.0 / SAMPLE_EVERY;
	if (now() - b.t0 + walk >= b.seconds && sweep->tally->cases >= b.floor)
		return; /* no time for the sample */
	for (int pass = 2;; pass++) {
		int below_floor;

		started = now();
		if (!budgeted_pass(o, v, sweep, placed, &b) || b.below >= 1)
			return;
		below_floor = sweep->tally->cases < b.floor;
		if (pass >= MAX_PASSES && !below_floor)
			return;
		per_draw = (now() - started - walk) / (b.below - b.from);
		left = TAKE * (b.seconds - (now() - b.t0)) - walk;
		if (left < b.seconds / 20 && !below_floor)
			return;
		b.from = b.below;
		/* A pass too quick to time (a page routine's few cases): the rest
		 * costs as little, so it all runs. Below the floor, the next pass
		 * may take every seed left: it stops at the floor once out of
		 * time (past_budget). */
		b.below = per_draw > 0 && !below_floor ? b.from + left / per_draw : 1;
		if (b.below > 1)
			b.below = 1;
	}
}

/* A sweep that stopped short of its profile (at its first findings, on a
 * case it could not judge, or at a stop signal) says of how many cases:
 * its record's `planned`, which a reader compares with `cases` (the gate
 * calls a pass on fewer could not judge). One that ran whole has planned
 * what it ran, and is not walked twice. */
static void count_planned_if_short(const struct mg_verify_opts *o, const struct mg_variant *v,
				   struct mg_tally *t)
{
	struct budget b = {.planned = 0};

	if (!t->failures && !t->error && !t->interrupted)
		return;
	plan(o, v, &b);
	t->planned = b.planned;
}

/* The sweep, then the placements (placements.h) and the situations (the
 * table above), which name their own stages in the records; they count in
 * the sweep's row. */
static void sweep_and_placements(const struct mg_verify_opts *o, const struct mg_variant *v,
				 struct mg_tally_run *sweep)
{
	struct mg_tally_run placed = *sweep;

	placed.stage = "placements";
	if (o->sweep_seconds > 0) {
		budgeted_sweep(o, v, sweep, &placed);
		return;
	}
	sweep_cases(o, v, mg_tally_case, sweep);
	if (placements_wanted(o, sweep->tally))
		placement_cases(o, v, mg_tally_case, &placed);
	situation_stages(o, v, sweep);
	count_planned_if_short(o, v, sweep->tally);
}

static void run_stage(const struct mg_verify_opts *o, const struct mg_variant *v,
		      struct mg_tally *t, int huge)
{
	char path[512], header[512];
	struct mg_tally_run run = {t, path, o->max_failures, huge ? "huge" : "sweep", header};
	double t0 = now();

	/* Earlier runs' findings stay: this run's are appended after them. */
	findings_path(o, v, huge, path, sizeof path);
	stage_header(o, v, huge, header, sizeof header);
	t->state = MG_STAGE_RUNNING;
	if (huge)
		mg_huge_sweep(v, o->profile == MG_PROFILE_FULL, o->seed, (enum mg_huge_mode)o->huge,
			      mg_tally_case, &run);
	else
		sweep_and_placements(o, v, &run);
	t->seconds = now() - t0;
	if (!mg_tally_close(t, path, "complete") && !t->error) {
		t->error = t->unsaved = 1;
		snprintf(t->why, sizeof t->why, "the findings file could not be written");
	}
	t->state = MG_STAGE_DONE;
}

static void run_huge_child(struct runner *rn)
{
	const struct mg_verify_opts *o = rn->o;
	double t0 = now();

	/* The oracle cases need only the address space, not the mapped regions.
	 * A 32-bit address space without 2 GiB in one piece: the check does not
	 * apply; any other reason is the harness's: it could not be judged. */
	if (o->huge == MG_HUGE_ORACLE_ONLY
		    ? !mg_huge_possible(rn->huge->why, sizeof rn->huge->why)
		    : !mg_huge_available(rn->huge->why, sizeof rn->huge->why)) {
		rn->huge->na = mg_huge_na();
		for (size_t i = 0; i < o->count; i++)
			if (rn->results[i].huge.state == MG_STAGE_PENDING)
				rn->results[i].huge.state =
					rn->huge->na ? MG_STAGE_NA : MG_STAGE_ERROR;
		_exit(0);
	}
	for (; rn->huge->next < o->count; rn->huge->next++)
		if (rn->results[rn->huge->next].huge.state == MG_STAGE_PENDING)
			run_stage(o, o->variants[rn->huge->next], &rn->results[rn->huge->next].huge,
				  1);
	unsigned long long cases = 0;
	for (size_t i = 0; i < o->count; i++)
		cases += rn->results[i].huge.cases;
	rn->huge->cases = cases; /* all children's, as each row keeps its own */
	rn->huge->seconds += now() - t0;
	_exit(0);
}

static int huge_pending(const struct runner *rn)
{
	for (size_t i = 0; i < rn->o->count; i++)
		if (rn->results[i].huge.state == MG_STAGE_PENDING)
			return 1;
	return 0;
}

/* Marks the pending huge stages as not judged, for `why`. */
static void huge_rows_error(struct runner *rn, const char *why)
{
	for (size_t i = 0; i < rn->o->count; i++)
		if (rn->results[i].huge.state == MG_STAGE_PENDING)
			rn->results[i].huge.state = MG_STAGE_ERROR;
	if (!rn->huge->why[0])
		snprintf(rn->huge->why, sizeof rn->huge->why, "%s", why);
}

/* Returns the child's pid, or 0 when it could not be started (the stage is
 * then an error). */
static pid_t start(struct runner *rn, size_t row, int huge)
{
	char why[160];
	pid_t pid;

	fflush(stdout);
	pid = mg_stop_fork();
	if (pid < 0 && mg_stop_signal())
		return 0; /* the run is being stopped: nothing more starts */
	if (pid < 0) {
		snprintf(why, sizeof why, "cannot fork: %s", strerror(errno));
		if (huge) {
			huge_rows_error(rn, why);
		} else {
			struct mg_tally *t = &rn->results[row].sweep;
			t->state = MG_STAGE_DONE;
			t->error = 1;
			snprintf(t->why, sizeof t->why, "%s", why);
		}
		return 0;
	}
	if (pid == 0) {
		if (huge)
			run_huge_child(rn);
		run_stage(rn->o, rn->o->variants[row], &rn->results[row].sweep, 0);
		_exit(0);
	}
	return pid;
}

static void start_huge_if_pending(struct runner *rn)
{
	for (size_t i = rn->huge->next; i < rn->o->count; i++)
		if (rn->results[i].huge.state == MG_STAGE_PENDING) {
			rn->huge_pid = start(rn, 0, 1);
			return;
		}
	rn->huge_pid = 0;
}

/* ---- the parent ---------------------------------------------------------- */

/* A child that stops without finishing its stage died on its current case. */
static void settle(const struct runner *rn, size_t row, int huge, int status)
{
	struct mg_tally *t = huge ? &rn->results[row].huge : &rn->results[row].sweep;
	char path[512], header[512], how[160];
	struct mg_tally_run run = {t, path, rn->o->max_failures, huge ? "huge" : "sweep", header};

	if (t->state != MG_STAGE_RUNNING && (huge || t->state != MG_STAGE_PENDING))
		return;
	findings_path(rn->o, rn->o->variants[row], huge, path, sizeof path);
	stage_header(rn->o, rn->o->variants[row], huge, header, sizeof header);
	if (mg_stop_signal()) {
		/* Stopped by the run's own stop, not killed by its case. */
		t->state = MG_STAGE_DONE;
		t->interrupted = 1;
		snprintf(how, sizeof how, "interrupted by %s: the findings of this run above are "
			 "partial", mg_signal_name(mg_stop_signal()));
	} else {
		mg_tally_ended(&run, status);
		snprintf(how, sizeof how, "%s", t->error ? "could not judge" : "the harness died");
	}
	if (!mg_tally_close(t, path, how) && !t->error) {
		t->error = t->unsaved = 1;
		snprintf(t->why, sizeof t->why, "the findings file could not be written");
	}
}

/* The huge child ends when its work is done, or dies on a variant: then
 * that row gets the crash and a new child takes the rest. One that ends
 * without starting a row will not do better next time. */
static void huge_child_ended(struct runner *rn, int status)
{
	size_t row = rn->huge->next;

	rn->huge_pid = 0;
	if (row < rn->o->count && rn->results[row].huge.state == MG_STAGE_RUNNING) {
		settle(rn, row, 1, status);
		rn->huge->next++;
		start_huge_if_pending(rn);
		return;
	}
	if (!huge_pending(rn) || mg_stop_signal())
		return;
	if (WIFSIGNALED(status)) {
		char why[160];
		snprintf(why, sizeof why, "its process was killed by %s before the first case",
			 mg_signal_name(WTERMSIG(status)));
		huge_rows_error(rn, why);
	} else if (WEXITSTATUS(status) != 0) {
		char why[160];
		snprintf(why, sizeof why, "its process exited with status %d before the first case",
			 WEXITSTATUS(status));
		huge_rows_error(rn, why);
	} else {
		huge_rows_error(rn, "its process ended before the first case");
	}
}

/* Kills the child if one call has run MG_UNSTOPPED_SPARE_MS of its CPU
 * time past its limit (its watchdog would have ended it, could it). */
static void watch_child(pid_t pid, struct mg_tally *t, struct call_watch *w)
{
	clockid_t clock;
	double cpu;

	if (!pid || clock_getcpuclockid(pid, &clock) != 0 || (cpu = mg_cpu_clock_ms(clock)) < 0)
		return;
	if (t != w->t || t->in_call != w->seq) {
		w->t = t;
		w->seq = t->in_call;
		w->cpu_since = cpu;
		return;
	}
	/* CPU time only: the wall clock is not watched here (0). */
	if (w->seq & 1 && !t->overdue &&
	    mg_call_overran(cpu - w->cpu_since, 0, t->call_limit_ms + MG_UNSTOPPED_SPARE_MS)) {
		t->overdue = 1;
		kill(pid, SIGKILL);
	}
}

static void watch_children(struct runner *rn)
{
	size_t row = rn->huge->next;

	for (size_t i = 0; i < rn->o->count; i++)
		watch_child(rn->pids[i], &rn->results[i].sweep, &rn->watches[i]);
	if (rn->huge_pid && row < rn->o->count)
		watch_child(rn->huge_pid, &rn->results[row].huge, &rn->huge_watch);
}

/* Waits for a child to end, watching the running ones' calls meanwhile;
 * returns early on a stop signal (the caller looks). */
static pid_t wait_watching(struct runner *rn, int *status)
{
	const struct timespec tick = {0, 50 * 1000000L};

	for (;;) {
		pid_t pid = waitpid(-1, status, WNOHANG);

		if (pid != 0 || mg_stop_signal())
			return pid;
		watch_children(rn);
		nanosleep(&tick, NULL);
	}
}

static void reap_one(struct runner *rn)
{
	int status;
	pid_t pid = wait_watching(rn, &status);

	if (pid <= 0)
		return; /* a stop signal (the caller looks) */
	mg_stop_reaped(pid);
	if (pid == rn->huge_pid) {
		huge_child_ended(rn, status);
		return;
	}
	for (size_t i = 0; i < rn->o->count; i++)
		if (rn->pids[i] == pid) {
			rn->pids[i] = 0;
			if (rn->results[i].sweep.state != MG_STAGE_DONE)
				rn->results[i].sweep.seconds = now() - rn->started[i];
			settle(rn, i, 0, status);
			rn->running--;
		}
}

static const char *huge_column(const struct mg_tally *t)
{
	switch (t->state) {
	case MG_STAGE_NONE: return "-";
	case MG_STAGE_NA: return "skip";
	case MG_STAGE_ERROR: return "error";
	default: return t->error ? "error" : t->failures ? "FAIL" : "pass";
	}
}

/* The op column fits the longest op name, copy_from_user. */
#define OP_COLUMN "%-14s"

static void print_header(void)
{
	printf("%-34s " OP_COLUMN " %-7s %-32s %10s %8s %-6s %s\n", "variant", "op", "arch", "status",
	       "cases", "time", "4GiB+", "first finding");
}

static void print_row(const struct mg_variant *v, const char *status, const struct result *r)
{
	const struct mg_tally *first = r && r->sweep.shown ? &r->sweep : r ? &r->huge : NULL;
	char finding[96] = "-";

	if (first && first->shown)
		snprintf(finding, sizeof finding, "%s: %.70s",
			 mg_class_name(first->findings[0].cls), first->findings[0].detail);
	if (!r) {
		printf("%-34s " OP_COLUMN " %-7s %-32s %10s %8s %-6s %s\n", v->name, mg_op_name(v->op),
		       v->arch, status, "-", "-", "-", finding);
		return;
	}
	printf("%-34s " OP_COLUMN " %-7s %-32s %10llu %7.1fs %-6s %s\n", v->name, mg_op_name(v->op),
	       v->arch, status, r->sweep.cases + r->huge.cases, r->sweep.seconds + r->huge.seconds,
	       huge_column(&r->huge), finding);
}

enum row_verdict { ROW_UNEXPECTED, ROW_PASSED, ROW_FAILED_AS_EXPECTED, ROW_SKIPPED, ROW_ERROR };

static const char *const row_names[] = {"unexpected", "passed", "failed-as-expected", "skipped",
					"error"};

/* Why a stage could not be judged, or NULL. */
static const char *stage_error(const struct runner *rn, const struct mg_tally *t)
{
	if (t->state == MG_STAGE_ERROR)
		return rn->huge->why;
	return t->error ? t->why : NULL;
}

/* The row's status, from both stages. */
static enum row_verdict judge_row(const struct runner *rn, size_t row, char *out, size_t size)
{
	const struct result *r = &rn->results[row];
	unsigned expect = expected_classes(rn->o, rn->o->variants[row]);
	unsigned huge_expect = expect & MG_EXPECT_ONLY_HUGE ? expect & ~MG_EXPECT_ONLY_HUGE : 0;
	char huge[120];

	/* The reason is in the stage's record and the "could not judge" line. */
	if (stage_error(rn, &r->sweep)) {
		snprintf(out, size, "ERROR (could not judge)");
		return ROW_ERROR;
	}
	if (stage_error(rn, &r->huge)) {
		snprintf(out, size, "ERROR (4GiB+: could not judge)");
		return ROW_ERROR;
	}
	if (!mg_tally_judge(&r->sweep, huge_expect ? 0 : expect, out, size))
		return ROW_UNEXPECTED;
	if (rn->o->variants[row]->expect & MG_EXPECT_ONLY_FULL && !expect)
		snprintf(out, size, "PASS (the full sweep fails it)");
	if (rn->o->variants[row]->expect & MG_EXPECT_MISALIGNED && !rn->o->override_expect)
		snprintf(out, size, "PASS (the watch fails it)");
	/* Wrong only at huge lengths, and those could not run here: whether it
	 * fails as it should is unknown, so it has not passed. */
	if (huge_expect && r->huge.state == MG_STAGE_NA) {
		snprintf(out, size, "SKIP (4GiB+ check: %.100s)", huge_na_why(rn, row));
		return ROW_SKIPPED;
	}
	if (huge_expect && r->huge.state != MG_STAGE_DONE) {
		snprintf(out, size, "PASS (4GiB+ check not run)");
		return ROW_PASSED;
	}
	if (r->huge.state != MG_STAGE_DONE)
		return expect ? ROW_FAILED_AS_EXPECTED : ROW_PASSED;
	/* The oracle cases alone miss some truncated counts (a backward copy
	 * whose first store faults): passing them proves nothing here. */
	if (huge_expect && r->huge.failures == 0 && rn->o->huge == MG_HUGE_ORACLE_ONLY &&
	    MG_HUGE_LENGTHS) {
		snprintf(out, size, "SKIP (4GiB+ check: only its oracle cases ran)");
		return ROW_SKIPPED;
	}
	if (!mg_tally_judge(&r->huge, huge_expect, huge, sizeof huge)) {
		snprintf(out, size, "4GiB+ %s", huge);
		return ROW_UNEXPECTED;
	}
	if (huge_expect)
		snprintf(out, size, "%s", huge);
	return expect ? ROW_FAILED_AS_EXPECTED : ROW_PASSED;
}

static int row_ready(const struct runner *rn, size_t i)
{
	const struct result *r = &rn->results[i];

	if (r->sweep.interrupted || r->huge.interrupted)
		return 0; /* never judged: its run was stopped */
	return rn->skipped[i] ||
	       (r->sweep.state == MG_STAGE_DONE && r->huge.state != MG_STAGE_PENDING &&
		r->huge.state != MG_STAGE_RUNNING);
}

/* What a stage did, for its record. */
static const char *stage_status(const struct runner *rn, const struct mg_tally *t)
{
	if (stage_error(rn, t))
		return "error";
	if (t->state == MG_STAGE_NA)
		return "n/a";
	return t->failures ? "fail" : "pass";
}

static void expected_text(unsigned expect, char *out, size_t size)
{
	if (expect)
		mg_class_mask_format(expect, out, (unsigned)size);
	else
		snprintf(out, size, "pass");
}

/* The situations' stages, in the sweep's record (docs/records.md). */
static void write_situation_fields(struct mg_json *j, const struct mg_tally *t)
{
	static const char *const names[] = {"not run", "n/a", "pass", "fail"};

	for (size_t i = 0; i < MG_SITUATIONS; i++) {
		const struct situation *s = &situations[i];
		const struct mg_situation_tally *st = &t->situations[i];
		const char *why = st->state == MG_SITUATION_NA	     ? st->why
				  : st->state == MG_SITUATION_NOT_RUN ? s->not_run
								      : NULL;

		mg_json_string(j, s->stage, names[st->state]);
		mg_json_uint(j, s->cases_field, st->cases);
		mg_json_real(j, s->seconds_field, st->seconds);
		mg_json_string(j, s->reason_field, why);
	}
}

/* The thresholds given (--thresholds): those the sweep's lengths are
 * around (below 1 KiB every length is swept), and those past the sandbox,
 * which it could not take (docs/records.md). */
static void write_threshold_fields(struct mg_json *j, const struct mg_thresholds *t)
{
	if (!t->n)
		return;
	for (int within = 1; within >= 0; within--) {
		mg_json_open_array(j, within ? "thresholds" : "thresholds_past_sandbox");
		for (size_t i = 0; i < t->n; i++)
			if ((t->at[i] < MG_MAX_LEN) == within)
				mg_json_uint(j, NULL, t->at[i]);
		mg_json_close_array(j);
	}
}

/* One stage's variant record; `t` NULL for a row the CPU cannot run. */
static void write_stage_record(struct runner *rn, size_t row, const char *stage,
			       const struct mg_tally *t, unsigned expect, const char *row_status,
			       enum row_verdict verdict)
{
	const struct mg_variant *v = rn->o->variants[row];
	const char *reason = t ? stage_error(rn, t) : NULL;
	char expected[96], needs[96], missing[128];
	struct mg_json j;

	if (t && !reason && t->state == MG_STAGE_NA)
		reason = huge_na_why(rn, row);
	if (!t) {
		mg_cpu_missing(v->features, needs, sizeof needs);
		snprintf(missing, sizeof missing, "needs %s", needs);
		reason = missing;
	}
	expected_text(expect, expected, sizeof expected);
	mg_json_start(&j, "variant");
	mg_json_string(&j, "variant", v->name);
	if (mg_cpu_model())
		mg_json_string(&j, "cpu_model", mg_cpu_model());
	mg_json_string(&j, "op", mg_op_name(v->op));
	mg_json_string(&j, "arch", v->arch);
	if (v->convention)
		mg_json_string(&j, "convention", v->convention);
	mg_json_string(&j, "stage", stage);
	mg_json_string(&j, "status", t ? stage_status(rn, t) : "skip");
	mg_json_string(&j, "expected", expected);
	mg_json_string(&j, "row", row_names[verdict]);
	mg_json_string(&j, "row_status", row_status);
	mg_json_uint(&j, "cases", t ? t->cases : 0);
	mg_json_uint(&j, "planned", t && t->planned ? t->planned : t ? t->cases : 0);
	mg_json_uint(&j, "failures", t ? t->failures : 0);
	mg_json_real(&j, "seconds", t ? t->seconds : 0);
	if (t && t->own_cases) {
		mg_json_uint(&j, "own_cases", t->own_cases);
		mg_json_real(&j, "own_seconds", t->own_seconds);
	}
	mg_json_string(&j, "reason", reason);
	mg_json_warnings(&j, t ? t->warnings : 0, t ? &t->overread : NULL);
	mg_json_unjudged(&j, t ? t->unjudged : 0, t ? t->unjudged_cases : NULL);
	if (t && strcmp(stage, "sweep") == 0) {
		write_situation_fields(&j, t);
		write_threshold_fields(&j, &rn->o->thresholds);
	}
	if (!mg_json_write(&j, stdout))
		rn->write_failed = 1;
	if (t && stage_error(rn, t) && !mg_record_error(stdout, stage, v->name, stage_error(rn, t)))
		rn->write_failed = 1;
}

static void write_row_records(struct runner *rn, size_t row, const char *status,
			      enum row_verdict verdict)
{
	const struct result *r = &rn->results[row];
	unsigned expect = expected_classes(rn->o, rn->o->variants[row]);
	unsigned huge_expect = expect & MG_EXPECT_ONLY_HUGE ? expect & ~MG_EXPECT_ONLY_HUGE : 0;

	if (rn->skipped[row]) {
		write_stage_record(rn, row, "sweep", NULL, expect, status, verdict);
		return;
	}
	write_stage_record(rn, row, "sweep", &r->sweep, huge_expect ? 0 : expect, status, verdict);
	if (r->huge.state != MG_STAGE_NONE)
		write_stage_record(rn, row, "huge", &r->huge, huge_expect, status, verdict);
}

static void show_row(struct runner *rn, size_t row, const char *status, enum row_verdict verdict)
{
	if (mg_format == MG_FORMAT_JSONL)
		write_row_records(rn, row, status, verdict);
	else
		print_row(rn->o->variants[row], status,
			  rn->skipped[row] ? NULL : &rn->results[row]);
}

/* Prints finished rows in table order, as far as they go. */
static void print_ready_rows(struct runner *rn)
{
	char status[160], needs[96];

	for (; rn->next_print < rn->o->count && row_ready(rn, rn->next_print); rn->next_print++) {
		size_t i = rn->next_print;
		const struct mg_variant *v = rn->o->variants[i];
		if (rn->skipped[i]) {
			mg_cpu_missing(v->features, needs, sizeof needs);
			snprintf(status, sizeof status, "SKIP (needs %s)", needs);
			show_row(rn, i, status, ROW_SKIPPED);
			rn->skipped_rows++;
			continue;
		}
		enum row_verdict verdict = judge_row(rn, i, status, sizeof status);
		show_row(rn, i, status, verdict);
		rn->cases += rn->results[i].sweep.cases + rn->results[i].huge.cases;
		rn->unexpected += verdict == ROW_UNEXPECTED;
		rn->passed += verdict == ROW_PASSED;
		rn->xfail += verdict == ROW_FAILED_AS_EXPECTED;
		rn->skipped_rows += verdict == ROW_SKIPPED;
		if (verdict == ROW_ERROR && !rn->errors++)
			snprintf(rn->first_error, sizeof rn->first_error, "%s: %.150s", v->name,
				 stage_error(rn, &rn->results[i].sweep)
					 ? stage_error(rn, &rn->results[i].sweep)
					 : stage_error(rn, &rn->results[i].huge));
	}
	fflush(stdout);
}

/* A row's huge stage: left out (options, op, a CPU it cannot run on), to
 * run, or n/a in this build (huge_na_why). */
static enum mg_stage_state huge_plan(const struct runner *rn, size_t row)
{
	const struct mg_variant *v = rn->o->variants[row];

	if (rn->skipped[row] || !huge_applies(rn->o, v))
		return MG_STAGE_NONE;
	return mg_huge_applies(v->op) ? MG_STAGE_PENDING : MG_STAGE_NA;
}

static void plan_rows(struct runner *rn)
{
	char needs[96];

	for (size_t i = 0; i < rn->o->count; i++) {
		const struct mg_variant *v = rn->o->variants[i];
		rn->skipped[i] = mg_cpu_missing(v->features, needs, sizeof needs) != 0;
		rn->results[i].sweep.state = rn->skipped[i] ? MG_STAGE_NONE : MG_STAGE_PENDING;
		rn->results[i].huge.state = huge_plan(rn, i);
	}
}

/* Starts the sweep children, at most --jobs at once, until all ran or a
 * stop signal came (its handler has stopped the running ones; they are
 * reaped all the same). */
static void run_all(struct runner *rn)
{
	plan_rows(rn);
	start_huge_if_pending(rn);
	for (size_t i = 0; i < rn->o->count && !mg_stop_signal(); i++) {
		if (rn->skipped[i])
			continue;
		while (rn->running >= rn->o->jobs && !mg_stop_signal()) {
			reap_one(rn);
			print_ready_rows(rn);
		}
		if (mg_stop_signal())
			break;
		rn->pids[i] = start(rn, i, 0);
		rn->started[i] = now();
		rn->running += rn->pids[i] != 0;
		print_ready_rows(rn);
	}
	while (rn->running || rn->huge_pid) {
		reap_one(rn);
		print_ready_rows(rn);
	}
	print_ready_rows(rn);
}

static void print_details(const struct runner *rn)
{
	char path[512], title[160];
	const char *check = MG_HUGE_LENGTHS ? "the 4 GiB+ check" : "the 2 GiB+ memmove check";

	for (size_t i = 0; i < rn->o->count; i++) {
		const struct mg_variant *v = rn->o->variants[i];
		findings_path(rn->o, v, 0, path, sizeof path);
		mg_tally_print(&rn->results[i].sweep, v->name, path);
		findings_path(rn->o, v, 1, path, sizeof path);
		snprintf(title, sizeof title, "%s, lengths of 2 GiB and more", v->name);
		mg_tally_print(&rn->results[i].huge, title, path);
	}
	if (rn->huge->why[0] && !rn->huge->na)
		printf("\n%s: could not judge: %s\n", check, rn->huge->why);
	else if (rn->huge->why[0])
		printf("\n%s was skipped (n/a): %s\n", check, rn->huge->why);
	else if (rn->huge->seconds > 0)
		printf("\n%s: %llu cases in %.1f s, in one process%s\n", check, rn->huge->cases,
		       rn->huge->seconds,
		       !MG_HUGE_LENGTHS ? " (an overlapping move in one mapping)"
		       : rn->o->huge == MG_HUGE_ORACLE_ONLY
			       ? " (mid-size lengths, and guard-oracle cases only at 2 GiB+)"
			       : "");
}

static void *shared(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The harness could not even start: said as the output's one error. */
static int cannot_start(const char *why)
{
	struct mg_summary sum = {.command = "verify", .errors = 1};

	if (mg_format == MG_FORMAT_JSONL) {
		mg_record_error(stdout, "verify", NULL, why);
		mg_record_summary(stdout, &sum);
	} else {
		printf("could not judge: %s\n", why);
	}
	return MG_EXIT_NOT_JUDGED;
}

/* A stop signal ended the run: the rows done are printed, the findings
 * saved (each stopped stage's part of its file says it is partial). */
static int stopped(struct runner *rn)
{
	char where[700];

	if (mg_format == MG_FORMAT_TEXT)
		print_details(rn);
	snprintf(where, sizeof where, "%zu of %zu variants done; findings so far are in %s/ "
		 "(partial)", rn->next_print, rn->o->count, rn->o->findings_dir);
	return mg_interrupted("verify", NULL, where);
}

static void print_summary(struct runner *rn)
{
	const struct mg_verify_opts *o = rn->o;
	struct mg_summary sum = {.command = "verify",
				 .cases = rn->cases,
				 .passed = rn->passed + rn->xfail,
				 .failed = rn->unexpected,
				 .errors = rn->errors + (size_t)rn->write_failed,
				 .skipped = rn->skipped_rows};

	if (mg_format == MG_FORMAT_JSONL) {
		if (!mg_record_summary(stdout, &sum) || !mg_stdout_ok())
			rn->write_failed = 1;
		return;
	}
	print_details(rn);
	printf("\n%zu variants: %zu passed, %zu failed as expected, %zu skipped, %zu "
	       "unexpected%s\n",
	       o->count, rn->passed, rn->xfail, rn->skipped_rows, rn->unexpected,
	       rn->errors ? ", some not judged" : "");
	if (rn->errors)
		printf("could not judge: %zu variant%s, the first %s\n", rn->errors,
		       rn->errors == 1 ? "" : "s", rn->first_error);
	if (!mg_stdout_ok())
		rn->write_failed = 1;
}

int mg_verify(const struct mg_verify_opts *o)
{
	struct runner rn = {.o = o};
	size_t rows = o->count + 1;
	char why[700];
	int status;

	rn.results = shared(rows * sizeof *rn.results);
	rn.huge = shared(sizeof *rn.huge);
	rn.pids = calloc(rows, sizeof *rn.pids);
	rn.started = calloc(rows, sizeof *rn.started);
	rn.skipped = calloc(rows, sizeof *rn.skipped);
	rn.watches = calloc(rows, sizeof *rn.watches);
	if (!rn.results || !rn.huge || !rn.pids || !rn.started || !rn.skipped || !rn.watches)
		return cannot_start("no memory for the results");
	if (!mg_findings_dir_ready(o->findings_dir, why, sizeof why)) {
		fprintf(stderr, "memgate verify: %s\n", why);
		if (mg_format == MG_FORMAT_JSONL)
			cannot_start(why);
		return MG_EXIT_NOT_JUDGED;
	}
	stamp_run();
	if (mg_format == MG_FORMAT_TEXT)
		print_header();
	run_all(&rn);
	if (mg_stop_signal()) {
		status = stopped(&rn);
	} else {
		print_summary(&rn);
		status = rn.errors || rn.write_failed ? MG_EXIT_NOT_JUDGED : rn.unexpected ? 1 : 0;
	}
	munmap(rn.results, rows * sizeof *rn.results);
	munmap(rn.huge, sizeof *rn.huge);
	free(rn.pids);
	free(rn.started);
	free(rn.skipped);
	free(rn.watches);
	return status;
}
