/* A coverage signal for code the compiler cannot instrument. Assembly
 * variants give a coverage-guided fuzzer no edges of their own, so it would
 * be blind to what a case exercises inside them. Each case instead marks a
 * cell: variant x length class x source and destination alignment class x
 * overlap class x placement x spot (guard pages, straddle of dst, src or
 * both, page-diff), so coverage tells which spots the inputs reached. A
 * cell the fuzzer has not seen before counts as new coverage, so it keeps
 * and mutates the inputs that reach it. */
#ifndef MG_CELLS_H
#define MG_CELLS_H

#include "case.h"
#include "decode.h"

/* Marks the case's cell in libFuzzer's extra counters and, in an AFL++
 * build, in AFL++'s coverage map. Off when MEMGATE_CELLS=0 (for measuring
 * what the signal is worth). */
void mg_cells_mark(const struct mg_target *t, const struct mg_case *c);

/* The cell's number, below MG_CELL_LIMIT: memcpy has 2,520 cells per
 * variant, memmove 7,560, memset 168; past the limit, cells share counters
 * (cells that differ only in the spot never do). The limit
 * is small because libFuzzer scans and clears every extra counter after
 * every input: 16,384 of them cost a third of the exec/s. */
#define MG_CELL_LIMIT 4096u
unsigned mg_cell_of(const struct mg_target *t, const struct mg_case *c);

#endif
