/* The main job: sweep every selected variant, one child process each, and
 * print one table. */
#ifndef MG_VERIFY_H
#define MG_VERIFY_H

#include "sweep.h"
#include "variant.h"

#include <stddef.h>
#include <stdint.h>

struct mg_verify_opts {
	enum mg_profile profile;
	uint64_t seed;
	unsigned jobs;		  /* variants swept at once */
	unsigned max_failures;	  /* a variant's sweep stops after this many failing cases */
	const char *findings_dir; /* each finding is appended here first */
	int huge;		  /* the huge-length check: enum mg_huge_mode (huge.h) */
	double sweep_seconds;	  /* a budget for each variant's sweep (0: none) */
	double sweep_floor;	  /* the share of its cases run even past it (0: none) */
	size_t max_len;		  /* the longest case run (0: every length) */
	struct mg_thresholds thresholds; /* lengths swept around too (sweep.h) */
	int override_expect;	  /* use `expect` instead of each variant's own */
	unsigned expect;
	const struct mg_variant *const *variants;
	size_t count;
};

/* Returns the exit status: 0 if every variant did what the table expects
 * (correct ones pass, known-bad ones fail with their classes), else 1. */
int mg_verify(const struct mg_verify_opts *o);

#endif
