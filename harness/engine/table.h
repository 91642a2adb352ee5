/* The variant tables: the routines under test (harness/variants.def) and the
 * deliberately broken ones that prove each check fires (tests/bad/bad.def). */
#ifndef MG_TABLE_H
#define MG_TABLE_H

#include "variant.h"

#include <stddef.h>
#include <stdio.h>

struct mg_table {
	const struct mg_variant *variants;
	size_t count;
};

extern const struct mg_table mg_main_table;
extern const struct mg_table mg_selftest_table;

/* Looks a variant up by name in both tables; NULL if there is none. */
const struct mg_variant *mg_variant_find(const char *name);
/* Prints "valid: a, b, c" of every variant's name, for usage errors. */
void mg_variant_print_names(FILE *out);

const char *mg_op_name(enum mg_op op);

/* A code address as the variant's symbol and offset ("memcpy_x+0x1c")
 * when it lies in the variant, else raw. */
void mg_variant_name_address(const struct mg_variant *v, const void *pc, char *out, size_t size);

#endif
