/* An arch whose exception table is not emulated (riscv64, armhf): no user
 * copy runs there (docs/usercopy.md), and a lookup finds nothing. */
#include "extable.h"

#include <stdio.h>

size_t mg_extable_count(void)
{
	return 0;
}

int mg_extable_find(const void *pc, struct mg_extable_entry *out)
{
	(void)pc;
	(void)out;
	return 0;
}

int mg_extable_apply(const struct mg_extable_entry *e, void *ucontext, char *why, size_t size)
{
	(void)e;
	(void)ucontext;
	snprintf(why, size, "this arch's exception table is not emulated yet");
	return 0;
}

void mg_extable_describe(const struct mg_extable_entry *e, char *out, size_t size)
{
	snprintf(out, size, "type %d", e->data);
}
