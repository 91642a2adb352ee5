/* Calling a variant through its table entry, whatever its operation. */
#ifndef MG_CALL_H
#define MG_CALL_H

#include "abi.h"
#include "convention.h"
#include "variant.h"

#include <stdint.h>

/* The second argument register: the source, or memset's int (with garbage
 * in the upper half of its register unless `clean_int`). */
static inline uintptr_t mg_call_arg1(const struct mg_variant *v, const void *src, int value,
				     int clean_int)
{
	uintptr_t a1 = (uintptr_t)src;

	if (v->op == MG_MEMSET) {
		a1 = (uint32_t)value;
#if defined(MG_ABI_INT_SIGN_EXTENDED)
		/* RISC-V: the ABI defines the upper half, as bit 31's copies. */
		a1 = (uintptr_t)(intptr_t)value;
		(void)clean_int;
#elif UINTPTR_MAX > 0xffffffffu
		if (!clean_int)
			a1 |= (uintptr_t)MG_ABI_INT_GARBAGE;
#else
		(void)clean_int; /* an int fills its whole register */
#endif
	}
	return a1;
}

/* A variant with a register convention of its own (convention.h): the
 * record makes the trampoline enter with the convention's registers, the
 * operands where it says, and return its result register. Called after
 * mg_abi_prepare, with the arguments of the C call. */
static inline void mg_call_convention(const struct mg_variant *v, uintptr_t a0, uintptr_t a1,
				      size_t len, struct mg_abi_record *rec)
{
	const struct mg_convention *conv = mg_variant_convention(v);
	uintptr_t operands[MG_CONV_MAX_ARGS];

	if (!conv)
		return;
	mg_convention_operands(v->op, a0, a1, len, operands);
#ifdef MG_ABI_GPR_NAMES
	mg_abi_set_convention(rec, conv, operands);
#else
	(void)rec; /* the parser refuses every convention here */
#endif
}

/* Calls the variant through the ABI trampoline with the arguments its
 * operation takes, and returns what it returned (NULL for void routines).
 * memset's int gets garbage in the upper half of its register unless
 * `clean_int`. What the trampoline saw is left in *rec. */
static inline void *mg_call(const struct mg_variant *v, void *dst, const void *src, int value,
			    size_t len, int clean_int, struct mg_abi_record *rec)
{
	if (v->convention)
		mg_call_convention(v, (uintptr_t)dst, mg_call_arg1(v, src, value, clean_int), len, rec);
	/* Every entry point takes at most three integer arguments, in the same
	 * places whatever their types, so one trampoline serves them all;
	 * clear_user's count is its second. */
	if (v->op == MG_CLEAR_USER)
		return (void *)mg_abi_call((const void *)(uintptr_t)v->entry.uclear,
					   (uintptr_t)dst, len, 0, rec);
	return (void *)mg_abi_call((const void *)(uintptr_t)v->entry.copy, (uintptr_t)dst,
				   mg_call_arg1(v, src, value, clean_int), len, rec);
}

/* The same call made directly, without the trampoline (for comparison). */
void *mg_call_direct(const struct mg_variant *v, void *dst, const void *src, int value, size_t len);

/* Applies the operation's reference to the same arguments. */
void mg_call_reference(enum mg_op op, void *dst, const void *src, int value, size_t len);

#endif
