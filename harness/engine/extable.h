/* The exception table of the routines under test, as the kernel keeps it
 * (docs/usercopy.md): each entry names an instruction that may fault on
 * user memory, where to resume and how (the handler type). The entries are
 * the routines' own: their objects' __ex_table sections, which the link
 * gathers into one table between __start___ex_table and __stop___ex_table
 * with the self-relative offsets resolved, as the kernel's link does. The
 * format and the handlers are per ISA (arch/ISA/extable.c). */
#ifndef MG_EXTABLE_H
#define MG_EXTABLE_H

#include <stddef.h>

struct mg_extable_entry {
	const void *insn;  /* the instruction that may fault */
	const void *fixup; /* where the kernel resumes */
	int data;	   /* the handler type and its operands, in the ISA's encoding */
};

/* How many entries this binary holds. */
size_t mg_extable_count(void);

/* Finds the entry for `pc`; returns 1 and fills *out, or 0 if none lists it
 * (the kernel would oops). */
int mg_extable_find(const void *pc, struct mg_extable_entry *out);

/* Gives the signal's machine context the state the kernel's handler for
 * the entry's type leaves (resume address, registers) after a page fault.
 * Returns 1, or 0 with `why` saying which type is not emulated. */
int mg_extable_apply(const struct mg_extable_entry *e, void *ucontext, char *why, size_t size);

/* The entry's handler type in words: "UACCESS", "COPY", "UCOPY_LEN(rdx, 8)". */
void mg_extable_describe(const struct mg_extable_entry *e, char *out, size_t size);

#endif
