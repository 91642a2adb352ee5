/* Placements outside the sandbox, where pointer arithmetic goes wrong
 * (docs/placements.md): buffers on both sides of 0x80000000 and a memmove
 * whose buffer crosses it (i386: signed pointer compares), buffers more
 * than 4 GiB apart (64-bit: distances truncated to 32 bits), and buffers
 * above 4 GiB across a multiple of 4 GiB (64-bit: pointers whose low 32
 * bits wrap). These spots
 * have their own mappings; the cases are judged exactly as sandbox cases
 * (check.c, mg_judge), only their buffers live here.
 * The placements stage of `verify` (spots.h) runs them with the sandbox's
 * own spots. */
#ifndef MG_PLACEMENTS_H
#define MG_PLACEMENTS_H

#include "sandbox.h"

/* Whether the mappings of a remote spot (mg_spot_is_remote) can be had
 * here; if not, says why (e.g. 0x80000000 is taken, or a 32-bit address
 * space has no room 4 GiB apart). Maps them on first use. */
int mg_placements_possible(enum mg_spot spot, char *why, size_t size);

/* Where a valid remote case's buffers go, as mg_sandbox_place does for the
 * sandbox; false (why said by mg_placements_possible) if its mappings
 * cannot be had. The source is writable memory here: the judge compares it
 * after the call. */
bool mg_placements_place(const struct mg_case *c, struct mg_layout *out);

/* True if `addr` lies in memory the remote spots laid out (buffers, guard
 * pages, the unmapped gap between far buffers). */
bool mg_placements_owns(const void *addr);

#endif
