/* Calling a variant through its table entry, whatever its operation. */
#ifndef MG_CALL_H
#define MG_CALL_H

#include "variant.h"

/* Calls the variant with the arguments its operation takes and returns what
 * it returned (NULL for void routines). */
void *mg_call(const struct mg_variant *v, void *dst, const void *src, int value, size_t len);

/* Applies the operation's reference to the same arguments. */
void mg_call_reference(enum mg_op op, void *dst, const void *src, int value, size_t len);

#endif
