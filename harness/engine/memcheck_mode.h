/* Whether this process runs under valgrind's memcheck, and how an
 * over-read is judged there: what the other units ask of memcheck.h's mode
 * without needing its checks (which call the judge). */
#ifndef MG_MEMCHECK_MODE_H
#define MG_MEMCHECK_MODE_H

/* 1 under valgrind, 0 not, -1 until the first case asks. */
extern int mg_memcheck_on;
/* Whether this runs under valgrind (asking it, the first time). */
int mg_memcheck_running(void);
/* --overread=strict (cli/options.c parses it; MEMGATE_OVERREAD=strict in
 * the environment does the same): an over-read that stays in an aligned
 * block with a buffer byte is a failure (aligned-over-read) instead of a
 * warning. */
extern int mg_overread_strict;

#endif
