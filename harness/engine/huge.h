/* Lengths of 2 GiB, 4 GiB and more, without that much memory: the check that
 * catches a count moved with a 32-bit instruction or compared as a signed
 * int. Two kinds of case:
 *
 * - mapped: the source is one 16 MiB pattern mapped over and over, the
 *   destination one 16 MiB scratch mapped over and over, except for real
 *   pages around its start, its end, 2 GiB, 4 GiB and a few points between,
 *   which are checked byte by byte (and around the buffers, for stray
 *   writes);
 * - oracle (--oracle): only the first 64 KiB of each buffer is mapped and
 *   the rest of the length is PROT_NONE. A correct routine must run into it
 *   and fault; one that returns has truncated or mis-compared the length. */
#ifndef MG_HUGE_H
#define MG_HUGE_H

#include "case.h"
#include "verdict.h"

#include <stddef.h>
#include <stdint.h>

/* The check is about lengths of 2 GiB, 4 GiB and more. Only a 64-bit
 * size_t holds 4 GiB: a 32-bit build has just the overlapping memmove of
 * 2 GiB and more in one mapping (the one-buffer cases, mg_huge_applies),
 * and the 4 GiB constants (case.h) are never used there. */
#define MG_HUGE_2GIB ((size_t)1 << 31)

/* Whether this process can reserve the huge-length space (cheap); if not,
 * says why. */
int mg_huge_possible(char *why, size_t size);
/* The same, and maps and warms up the regions of the mapped cases (seconds):
 * for a process about to run many of them. */
int mg_huge_available(char *why, size_t size);

/* Whether the last failure of the two above is one of the address space
 * (a 32-bit process without 2 GiB in one piece): the check is n/a, not an
 * error. */
int mg_huge_na(void);

/* Whether this build has huge cases for `op`: memcpy, mempcpy, memmove and
 * memset with a 64-bit size_t, memmove alone with a 32-bit one. */
int mg_huge_applies(enum mg_op op);

/* Runs one huge case (mg_case_is_huge). */
void mg_huge_check(const struct mg_case *c, int clean_int, struct mg_verdict *out);

/* For --emit-c (targets/emit_c.c): the one-buffer region of the moves of
 * 2 GiB and more, reserved if it is not yet (the same request a case's
 * child made gets the same address), and its size; NULL if there is no
 * room. */
unsigned char *mg_huge_one_region(size_t *size);

/* Which huge cases a sweep runs: all, or only the guard-oracle ones, which
 * fault after 64 KiB and so cost next to nothing even under emulation
 * (where a single 4 GiB copy takes 20 s). They still catch a truncated or
 * signed count, which returns instead of faulting. */
enum mg_huge_mode { MG_HUGE_OFF, MG_HUGE_ALL, MG_HUGE_ORACLE_ONLY };

/* Feeds `fn` the huge cases for a variant mg_huge_applies to: the
 * guard-oracle ones, mid-size lengths from 16 MiB to 1 GiB (sparse; more of
 * them with `full`, the full profile; in every mode, as they take well under a second
 * even under emulation), and with MG_HUGE_ALL the mapped 2 GiB and 4 GiB
 * ones and, for memmove, the one-buffer ones (overlapping, 2 GiB and more).
 * A 32-bit build feeds only the one-buffer cases, in every mode. */
void mg_huge_sweep(const struct mg_variant *v, int full, uint64_t seed, enum mg_huge_mode mode,
		   mg_case_fn fn, void *ctx);

#endif
