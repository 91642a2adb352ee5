#include "replay.h"
#include "memcheck.h"

#include <stdio.h>

void mg_finding_signature(const struct mg_case *c, const struct mg_verdict *v, char *out,
			  size_t size)
{
	char site[MG_DETAIL_MAX];

	mg_verdict_site(v, site, sizeof site);
	snprintf(out, size, "%s %s %s", c->variant->name, mg_class_name(v->cls), site);
}

void mg_finding_replay_argv(const struct mg_case *c, const struct mg_verdict *v, struct mg_argv *a)
{
	/* What only memcheck sees replays only under it. */
	if (v->memcheck)
		mg_argv_add_words(a, "valgrind -q " MG_MEMCHECK_FLAGS);
	mg_case_replay_argv(c, a);
	/* Only strictness makes an aligned over-read a failure on x86. */
	if (v->cls == MG_ALIGNED_OVERREAD && mg_overread_strict)
		mg_argv_add_words(a, "--overread=strict");
}

void mg_finding_replay(const struct mg_case *c, const struct mg_verdict *v, char *out, size_t size)
{
	struct mg_argv a = {.argc = 0};

	mg_finding_replay_argv(c, v, &a);
	mg_argv_join(&a, out, size);
}
