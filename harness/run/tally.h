/* What one stage (the sweep, or the huge-length check) found for one
 * variant. The process running the stage writes it into memory shared with
 * the parent, and every finding to disk first. */
#ifndef MG_TALLY_H
#define MG_TALLY_H

#include "case.h"
#include "verdict.h"

#include <stdint.h>

#define MG_FINDINGS_SHOWN 8
#define MG_REPLAY_MAX	  320

struct mg_finding {
	enum mg_class cls;
	char detail[MG_DETAIL_MAX];
	char replay[MG_REPLAY_MAX];
};

enum mg_stage_state {
	MG_STAGE_NONE, /* does not apply to this variant */
	MG_STAGE_PENDING,
	MG_STAGE_RUNNING,
	MG_STAGE_DONE,	/* ran to its end, or its process died (see died), or
			 * could not judge a case (see error) */
	MG_STAGE_NA,	/* does not apply here (a 32-bit size_t): see why */
	MG_STAGE_ERROR, /* could not run at all: see why */
};

/* What became of a situation's stage (the interrupts, the threads:
 * verify.c's table), which runs in the sweep's process and counts in its
 * row. */
enum mg_situation_state {
	MG_SITUATION_NOT_RUN, /* the sweep stopped, or something failed, first */
	MG_SITUATION_NA,      /* the situation cannot be made here: see why */
	MG_SITUATION_PASS,
	MG_SITUATION_FAIL,
};
#define MG_SITUATIONS 2

struct mg_situation_tally {
	enum mg_situation_state state;
	unsigned long long cases; /* the stage's cases */
	double seconds;		  /* and what they took */
	char why[160];
};

struct mg_tally {
	enum mg_stage_state state;
	int died;		/* the process died of this signal, on `current` */
	volatile int in_call;	/* odd while the variant runs (mg_call_watch) */
	volatile unsigned call_limit_ms; /* the current case's, for the parent */
	int overdue;		/* killed by its parent: a call its watchdog could not stop */
	int unsaved;		/* a finding could not be written to the findings file */
	int headed;		/* this run's header is in the findings file */
	int interrupted;	/* a stop signal (stop.h) ended the stage: partial */
	int error;		/* a case could not be judged (or a finding not saved): */
	char why[160];		/* why */
	struct mg_case current; /* the case being run */
	unsigned long long cases, failures;
	unsigned long long planned; /* the profile's cases; more than `cases` when a
				       budget (--sweep-seconds) cut some */
	unsigned long long own_cases; /* a budgeted sweep: every length's own cases */
	double own_seconds;	      /* and what they took, with the plan's walk */
	unsigned classes; /* the classes it failed with */
	double seconds;
	unsigned warnings; /* enum mg_warning bits seen */
	struct mg_overread overread; /* the widest aligned over-read warned of */
	unsigned long long warned_runs;
	char warned_replay[MG_REPLAY_MAX]; /* the first run that warned */
	unsigned unjudged; /* enum mg_unjudged bits seen, */
	unsigned long long unjudged_cases[MG_UNJUDGED_KINDS]; /* and in how many cases each */
	struct mg_situation_tally situations[MG_SITUATIONS];
	unsigned shown;
	uint64_t last_shown_seed; /* a case fails in each placement: show it once */
	struct mg_finding findings[MG_FINDINGS_SHOWN];
};

/* The context of mg_tally_case. */
struct mg_tally_run {
	struct mg_tally *tally;
	const char *path;      /* findings file */
	unsigned max_failures; /* stop after this many failing cases */
	const char *stage;     /* "sweep", "huge": for the records */
	const char *header;    /* the run's first line in the findings file, or NULL */
};

/* The findings file is appended to, never truncated: each run's part starts
 * with its header (written before its first finding) and ends with
 * "== end of run: HOW" (mg_tally_close), so a part without an end was cut
 * short by something no handler sees (SIGKILL, a power cut). */

/* An mg_case_fn: checks the case and records it; asks to stop after
 * max_failures failing cases, a timeout or a case it could not judge. With
 * --format=jsonl each finding is also written to stdout as a record. */
int mg_tally_case(const struct mg_case *c, void *run);

/* The stage's process ended (wait status) before finishing: the case it was
 * on becomes a crash finding, or the stage an error (mg_verdict_ended). */
void mg_tally_ended(const struct mg_tally_run *run, int status);

/* Ends this run's part of the findings file with "== end of run: HOW", if
 * the run wrote one (a stage with no finding writes nothing). Returns 0
 * when that failed (said on stderr). */
int mg_tally_close(const struct mg_tally *t, const char *path, const char *how);

/* "PASS", "FAIL (expected)", ... for a stage that must pass (expect 0) or fail
 * with only the classes in `expect`; returns 1 when that is what happened. */
int mg_tally_judge(const struct mg_tally *t, unsigned expect, char *out, size_t size);

/* Prints the stage's warnings and first findings under `title`. */
void mg_tally_print(const struct mg_tally *t, const char *title, const char *path);

#endif
