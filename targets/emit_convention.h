/* The call of a variant with a register convention of its own, for the
 * standalone program `replay --emit-c` writes (targets/emit_c.c). */
#ifndef MG_EMIT_CONVENTION_H
#define MG_EMIT_CONVENTION_H

#include "variant.h"

#include <stdio.h>

/* Writes the program's entry_address() and call_variant() for `v`, whose
 * convention is declared: an inline-assembly call with each operand in
 * the register the convention names. `returns` is call_variant's type as
 * C spells it ("void *", "unsigned long "). */
void mg_emit_convention_call(FILE *f, const struct mg_variant *v, const char *returns);

#endif
