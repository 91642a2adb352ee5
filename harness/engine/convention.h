/* Register conventions of a routine's own (docs/conventions.md): the kernel
 * calls rep_movs_alternative and __clear_pages_unrolled from inline
 * assembly, with the arguments in registers of its choosing, the result in
 * another, and every register its constraints do not name left alone. A
 * variant declares such a convention as text,
 *
 *	args=REG,... [ret=REG] [clobbers=REG,...] [zero=REG,...]
 *
 * and is called that way; NULL (or "c") is the C convention. */
#ifndef MG_CONVENTION_H
#define MG_CONVENTION_H

#include "variant.h"

#include <stddef.h>
#include <stdint.h>

/* The most arguments a convention passes: the operation's operands (dst,
 * src or value, len), the page routines' length included. */
#define MG_CONV_MAX_ARGS 3

struct mg_convention {
	const char *text; /* as declared */
	unsigned nargs;
	int args[MG_CONV_MAX_ARGS]; /* register numbers (the arch's MG_ABI_GPR_NAMES) */
	int ret;		    /* the result's register, or -1: none */
	uint32_t clobbers;	    /* a bit per register the routine may change besides */
	uint32_t zero;		    /* a bit per register that enters holding 0 */
};

/* Parses `text`; 0 on success, else -1 with a one-line reason naming the
 * bad token in err. "c" parses as no convention: out->nargs is 0. */
int mg_convention_parse(const char *text, struct mg_convention *out, char *err, size_t size);

/* Whether the convention suits the operation: as many arguments as it has
 * operands (a page routine may take its length too), a result register iff
 * it returns one. 0, or -1 with the reason. */
int mg_convention_fits(const struct mg_convention *c, enum mg_op op, enum mg_ret ret, char *err,
		       size_t size);

/* The registers a call may change: the arguments (in and out operands, as
 * "+D" is), the result and the clobbers. */
uint32_t mg_convention_may_change(const struct mg_convention *c);

/* The variant's convention, parsed once (NULL: the C convention). A
 * declaration that does not parse or fit ends the program, exit 2, with
 * the reason: the variant cannot be called as declared. */
const struct mg_convention *mg_variant_convention(const struct mg_variant *v);

/* The operands of a call of `op`, in the order a convention's args= names
 * their registers: dst, then src (or memset's value), then len; clear_user
 * and clear_page have no second. Returns their count (page routines count
 * their length). */
unsigned mg_convention_operands(enum mg_op op, uintptr_t a0, uintptr_t a1, size_t len,
				uintptr_t out[MG_CONV_MAX_ARGS]);

/* Register i's name, for messages ("?" past the last). */
const char *mg_convention_reg_name(int reg);

#endif
