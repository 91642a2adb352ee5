/* memgate speed's table: what is measured (variants, lengths, alignments,
 * hot and cold cache) and the figures, shared by its parts: setup.c builds
 * it, measure.c fills it, print.c prints it (harness/cli/cmd_speed.c runs
 * them in turn). */
#ifndef MG_SPEED_H
#define MG_SPEED_H

#include "variant.h"

#include <stdio.h>

#define CMD	     "speed"
#define MAX_LENGTHS  64
#define MAX_LEN	     ((size_t)64 << 20)
#define MAX_ROUNDS   1000
#define QUICK_ROUNDS 3
#define PAGE	     4096
#define LINE	     64

/* Source and destination address mod 64: both aligned, and two unaligned
 * pairs whose heads differ, as the threads' "unaligned" rows did. memmove
 * adds the case it exists for: one buffer, dst = src + 2 (copied backward)
 * and dst = src - 2 (forward). */
struct align_case {
	unsigned src, dst;
	int overlap; /* one buffer: dst = src + (dst - src), e.g. src + 2 */
	const char *label;
};

enum cache { HOT, COLD, CACHE_COUNT };

struct speed {
	const struct mg_variant *const *v; /* v[0] is under test */
	size_t nv;
	char (*skip)[96]; /* per variant: why it cannot run here, or "" */
	size_t lens[MAX_LENGTHS];
	size_t nlen;
	const struct align_case *aligns;
	size_t nalign;
	unsigned rounds;
	unsigned char *src, *dst;
	double *cycles; /* [cache][len][align][variant]; NAN: not measured */
};

static inline double *cell(const struct speed *s, enum cache c, size_t l, size_t a, size_t v)
{
	return &s->cycles[((c * s->nlen + l) * s->nalign + a) * s->nv + v];
}

/* setup.c */
const struct align_case *mg_speed_align_cases(enum mg_op op, size_t *n);
int mg_speed_is_page_op(enum mg_op op);
void mg_speed_parse_lengths(struct speed *s, const char *list);
void mg_speed_set_lengths(struct speed *s, const size_t *lens, size_t n);
void mg_speed_check_variants(const struct speed *s);
void mg_speed_check_lengths(const struct speed *s);
void mg_speed_note_skipped(struct speed *s);
void mg_speed_prepare(struct speed *s);

/* evict.c: what a call touches, out of every cache level */
void mg_speed_make_cold(const unsigned char *src, const unsigned char *dst, size_t len);

/* measure.c */
void mg_speed_measure_all(struct speed *s);

/* print.c */
void mg_speed_print_intro(const struct speed *s);
void mg_speed_print_table(const struct speed *s, enum cache c);
void mg_speed_print_summary(const struct speed *s);
void mg_speed_write_data(const struct speed *s, FILE *out);

#endif
