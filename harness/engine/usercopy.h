/* The user copies' check (docs/usercopy.md): copy_from_user, copy_to_user
 * and clear_user, with the user buffer faulting from a byte on, the faults
 * resumed through the exception table as the kernel would, and the result
 * judged by the fault contract of include/linux/uaccess.h. */
#ifndef MG_USERCOPY_H
#define MG_USERCOPY_H

#include "case.h"
#include "sandbox.h"
#include "verdict.h"

/* Runs a valid user-copy case (mg_op_is_user) and fills in its verdict. */
void mg_usercopy_check(const struct mg_case *c, int clean_int, struct mg_verdict *out);

/* Where the case puts its buffers, filled as for the call (the standalone
 * reproducer writes them out): the layout, and the user pages that are
 * PROT_NONE during the call (*prot NULL, *prot_len 0 without a fault). */
void mg_usercopy_layout(const struct mg_case *c, struct mg_layout *at, unsigned char **prot,
			size_t *prot_len);

#endif
