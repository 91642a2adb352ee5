/* The table of situations (situations.def), and what the engine asks of
 * it. */
#include "situation.h"
#include "timeout.h"

#include <stdio.h>

#define MG_SITUATION(name) extern const struct mg_situation mg_situation_##name;
#include "situations.def"
#undef MG_SITUATION

static const struct mg_situation *const situations[] = {
#define MG_SITUATION(name) &mg_situation_##name,
#include "situations.def"
#undef MG_SITUATION
};

#define SITUATIONS (sizeof situations / sizeof situations[0])

const struct mg_situation *mg_situation_of(const struct mg_case *c)
{
	for (size_t i = 0; i < SITUATIONS; i++)
		if (situations[i]->wanted(c))
			return situations[i];
	return NULL;
}

bool mg_situation_valid(const struct mg_case *c, char *why, size_t size)
{
	const struct mg_situation *s = mg_situation_of(c);

	if (!s)
		return true;
	for (size_t i = 0; i < SITUATIONS; i++)
		if (situations[i] != s && situations[i]->wanted(c)) {
			snprintf(why, size, "%s and %s are separate situations", situations[i]->option,
				 s->option);
			return false;
		}
	return s->valid(c, why, size);
}

unsigned mg_situation_timeout_ms(const struct mg_case *c)
{
	const struct mg_situation *s = mg_situation_of(c);

	return s ? s->timeout_ms(c) : mg_case_timeout_ms(c);
}
