/* Builds the variant tables from their .def files: one line per variant
 * declares its entry point and fills in its row. */
#include "table.h"
#include "verdict.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DECL_MEMCPY(sym)     void *sym(void *, const void *, size_t);
#define DECL_MEMPCPY(sym)    void *sym(void *, const void *, size_t);
#define DECL_MEMMOVE(sym)    void *sym(void *, const void *, size_t);
#define DECL_MEMSET(sym)     void *sym(void *, int, size_t);
#define DECL_COPY_PAGE(sym)  void sym(void *, void *);
#define DECL_CLEAR_PAGE(sym) void sym(void *);
#define DECL_COPY_FROM_USER(sym) unsigned long sym(void *, const void *, unsigned long);
#define DECL_COPY_TO_USER(sym)	 unsigned long sym(void *, const void *, unsigned long);
#define DECL_CLEAR_USER(sym)	 unsigned long sym(void *, unsigned long);

#define ENTRY_MEMCPY(sym)                                                                          \
	{                                                                                          \
		.copy = sym                                                                        \
	}
#define ENTRY_MEMPCPY(sym)                                                                         \
	{                                                                                          \
		.copy = sym                                                                        \
	}
#define ENTRY_MEMMOVE(sym)                                                                         \
	{                                                                                          \
		.copy = sym                                                                        \
	}
#define ENTRY_MEMSET(sym)                                                                          \
	{                                                                                          \
		.set = sym                                                                         \
	}
#define ENTRY_COPY_PAGE(sym)                                                                       \
	{                                                                                          \
		.copy_page = sym                                                                   \
	}
#define ENTRY_CLEAR_PAGE(sym)                                                                      \
	{                                                                                          \
		.clear_page = sym                                                                  \
	}

#define ENTRY_COPY_FROM_USER(sym)                                                                  \
	{                                                                                          \
		.ucopy = sym                                                                       \
	}
#define ENTRY_COPY_TO_USER(sym)                                                                    \
	{                                                                                          \
		.ucopy = sym                                                                       \
	}
#define ENTRY_CLEAR_USER(sym)                                                                      \
	{                                                                                          \
		.uclear = sym                                                                      \
	}

#define MG_VARIANT(arch, name, op, ret, contract, features, expect, about)                         \
	DECL_##op(mg_##arch##_##name)
#define MG_VARIANT_CONV(arch, name, op, ret, contract, features, expect, convention, about)         \
	DECL_##op(mg_##arch##_##name)
#include "variants.def"
#include "bad.def"
#undef MG_VARIANT
#undef MG_VARIANT_CONV

/* scripts/gate builds this file once more with MG_SUBMITTED_DEF naming a
 * file of one line per entry point, MG_SUBMITTED(arch, name, symbol, op, ...): the routine
 * under review, appended to the main table for that build only. */
#ifdef MG_SUBMITTED_DEF
#define MG_SUBMITTED(arch, name, sym, op, ret, contract, features, convention, about) DECL_##op(sym)
#include MG_SUBMITTED_DEF
#undef MG_SUBMITTED
#endif

#define MG_VARIANT(arch, name, op, ret, contract, features, expect, about)                         \
	{#name,                                                                                    \
	 MG_##op,                                                                                  \
	 #arch,                                                                                    \
	 "mg_" #arch "_" #name,                                                                    \
	 ENTRY_##op(mg_##arch##_##name),                                                           \
	 ret,                                                                                      \
	 contract,                                                                                 \
	 features,                                                                                 \
	 expect,                                                                                   \
	 about,                                                                                    \
	 NULL},
/* A variant called with a register convention of its own (convention.h). */
#define MG_VARIANT_CONV(arch, name, op, ret, contract, features, expect, convention, about)         \
	{#name,                                                                                    \
	 MG_##op,                                                                                  \
	 #arch,                                                                                    \
	 "mg_" #arch "_" #name,                                                                    \
	 ENTRY_##op(mg_##arch##_##name),                                                           \
	 ret,                                                                                      \
	 contract,                                                                                 \
	 features,                                                                                 \
	 expect,                                                                                   \
	 about,                                                                                    \
	 convention},

static const struct mg_variant main_variants[] = {
#include "variants.def"
#ifdef MG_SUBMITTED_DEF
#define MG_SUBMITTED(arch, name, sym, op, ret, contract, features, convention, about)             \
	{#name, MG_##op, #arch, #sym, ENTRY_##op(sym), ret, contract, features, 0, about, convention},
#include MG_SUBMITTED_DEF
#undef MG_SUBMITTED
#endif
};

static const struct mg_variant selftest_variants[] = {
#include "bad.def"
};

const struct mg_table mg_main_table = {main_variants,
				       sizeof main_variants / sizeof main_variants[0]};
const struct mg_table mg_selftest_table = {selftest_variants,
					   sizeof selftest_variants / sizeof selftest_variants[0]};

static const struct mg_table *const all_tables[] = {&mg_main_table, &mg_selftest_table};

const struct mg_variant *mg_variant_find(const char *name)
{
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < all_tables[t]->count; i++)
			if (strcmp(all_tables[t]->variants[i].name, name) == 0)
				return &all_tables[t]->variants[i];
	return NULL;
}

void mg_variant_print_names(FILE *stream)
{
	const char *sep = "valid: ";

	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < all_tables[t]->count; i++) {
			fprintf(stream, "%s%s", sep, all_tables[t]->variants[i].name);
			sep = ", ";
		}
}

void mg_variant_name_address(const struct mg_variant *v, const void *pc, char *out, size_t size)
{
	const char *entry = (const char *)(uintptr_t)v->entry.copy;
	ptrdiff_t off = (const char *)pc - entry;

	if (off >= 0 && off < 0x10000)
		snprintf(out, size, "%s+0x%tx", v->symbol, off);
	else
		snprintf(out, size, "%p", pc);
}

const char *mg_op_name(enum mg_op op)
{
	static const char *const names[MG_OP_COUNT] = {
		[MG_MEMCPY] = "memcpy",		[MG_MEMMOVE] = "memmove",
		[MG_MEMSET] = "memset",		[MG_COPY_PAGE] = "copy_page",
		[MG_CLEAR_PAGE] = "clear_page", [MG_MEMPCPY] = "mempcpy",
		[MG_COPY_FROM_USER] = "copy_from_user", [MG_COPY_TO_USER] = "copy_to_user",
		[MG_CLEAR_USER] = "clear_user",
	};
	return op < MG_OP_COUNT ? names[op] : "?";
}
