/* The situations (docs/contract.md, S1 and S2): what memgate arranges
 * around a case's call, as the world around a routine may arrange it: a
 * signal at each of its instructions (interrupt.h), other threads calling
 * it at the same moment (thread.h). Each is one unit behind this interface,
 * listed once in situations.def. The sandbox makes a case's call through
 * its situation (check.c), a fault in the call ends it (outcome.c), the
 * judge asks it what it saw (mg_judge), and mg_case_valid asks it whether
 * it can be made for the case here. A case asks for at most one. */
#ifndef MG_SITUATION_H
#define MG_SITUATION_H

#include "case.h"
#include "sandbox.h"
#include "verdict.h"

#include <stdbool.h>
#include <stddef.h>

/* The hooks take a call's outcome (outcome.h) by pointer only, so that the
 * table of situations does not depend on the guarded call. */
struct mg_outcome;

/* Where a situation's rule sits among the judge's (docs/design.md,
 * Verdicts). */
enum mg_judged_at {
	/* What it saw explains the damage the later rules would name (a
	 * write below the stack, a neighbour's byte lost): before red zones. */
	MG_JUDGED_AFTER_ABI,
	/* The calls made beside the case's: after the case's own result. */
	MG_JUDGED_LAST,
};

/* How a blame checks a variation of a case: the sandbox's check_any. */
typedef void (*mg_check_fn)(const struct mg_case *c, int clean_int, struct mg_verdict *out);

struct mg_situation {
	const char *option; /* how a replay line asks for it: "--threads" */
	/* Whether case `c` asks for this situation. */
	bool (*wanted)(const struct mg_case *c);
	/* Whether it can be made here at all (this machine, this process);
	 * else false, and why in one clause. */
	bool (*possible)(char *why, size_t size);
	/* Whether it can be made for `c` here; else false, and why in one
	 * clause (mg_case_valid's message). */
	bool (*valid)(const struct mg_case *c, char *why, size_t size);
	/* The watchdog's limit for the case's call, in ms. */
	unsigned (*timeout_ms)(const struct mg_case *c);
	/* mg_outcome_run in the situation; the buffers' window is `at`'s.
	 * Faults unwind through mg_fault_jmp as usual, and mg_outcome_faulted
	 * then calls `abandon`. */
	void (*run)(struct mg_outcome *o, const struct mg_layout *at, int clean_int);
	/* After a fault in the call: puts back what `run` changed and stops
	 * what it started, so that nothing runs on while the case is judged. */
	void (*abandon)(void);
	/* The judge's rule: 1 and *out if the situation saw the routine break
	 * one of its duties, or was not made (an error, never a pass). */
	int (*broken)(const struct mg_outcome *o, struct mg_verdict *out);
	enum mg_judged_at judged_at;
	/* Whether a case that fails in it fails again when checked again (not
	 * where calls race): the sandbox's blames vary a case only then. */
	bool repeatable;
	/* After `c` failed in the situation with *out (not a timeout or an
	 * error): checks variations of the case through `check` and says in
	 * *out what they show (that the case passes without the situation, and
	 * what that means of the routine). */
	void (*blame)(const struct mg_case *c, mg_check_fn check, struct mg_verdict *out);
};

/* The situation case `c` asks for (the first in situations.def's order),
 * or NULL: a plain call. */
const struct mg_situation *mg_situation_of(const struct mg_case *c);

/* Whether `c` asks for no situation, or for one that can be made for it
 * here; else false and why. */
bool mg_situation_valid(const struct mg_case *c, char *why, size_t size);

/* The watchdog's limit for the case's call, in its situation, in ms. */
unsigned mg_situation_timeout_ms(const struct mg_case *c);

/* The judge's rule of the situation `s` (NULL: none) if it sits `at`. */
static inline int mg_situation_broken(const struct mg_situation *s, enum mg_judged_at at,
				      const struct mg_outcome *o, struct mg_verdict *out)
{
	return s && s->judged_at == at && s->broken(o, out);
}

#endif
