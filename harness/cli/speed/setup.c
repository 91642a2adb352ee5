/* memgate speed's set-up: the alignment cases of each operation, the
 * lengths (--lengths), the checks on the variants, and the buffers. */
#include "clock.h"
#include "cpu.h"
#include "options.h"
#include "speed.h"
#include "table.h"
#include "verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const struct align_case copy_aligns[] = {
	{0, 0, 0, "0/0"},     {1, 3, 0, "1/3"},	    {7, 60, 0, "7/60"},
	{1, 3, 1, "1/3 ovl"}, {3, 1, 1, "3/1 ovl"},
};
static const struct align_case set_aligns[] = {
	{0, 0, 0, "-/0"}, {0, 3, 0, "-/3"}, {0, 60, 0, "-/60"}};
static const struct align_case page_aligns[] = {{0, 0, 0, "0/0"}};
static const struct align_case clear_aligns[] = {{0, 0, 0, "-/0"}};

const struct align_case *mg_speed_align_cases(enum mg_op op, size_t *n)
{
	switch (op) {
	case MG_MEMMOVE: *n = 5; return copy_aligns;
	case MG_MEMCPY:
	case MG_MEMPCPY: *n = 3; return copy_aligns; /* no overlap: memcpy forbids it */
	case MG_MEMSET: *n = 3; return set_aligns;
	case MG_CLEAR_PAGE: *n = 1; return clear_aligns;
	default: *n = 1; return page_aligns;
	}
}

/* Page-aligned, filled (so no read lands on the shared zero page), with a
 * PROT_NONE page on each side: a routine that strays crashes rather than
 * corrupting the run. */
static unsigned char *map_buffer(size_t size, int fill)
{
	size_t mapped = (size + PAGE - 1) / PAGE * PAGE + 2 * PAGE;
	unsigned char *p =
		mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p, PAGE, PROT_NONE) ||
	    mprotect(p + mapped - PAGE, PAGE, PROT_NONE)) {
		fprintf(stderr, "memgate speed: cannot map %zu bytes: %s\n", mapped,
			strerror(errno));
		exit(1);
	}
	memset(p + PAGE, fill, mapped - 2 * PAGE);
	return p + PAGE;
}

/* "4K" is 4 << 10, "1M" 1 << 20. */
static unsigned suffix_shift(char c)
{
	return c == 'K' || c == 'k' ? 10 : c == 'M' || c == 'm' ? 20 : 0;
}

static size_t parse_length(const char *text, size_t n)
{
	char item[32], *end = NULL;
	unsigned long long v = 0;
	unsigned shift;

	snprintf(item, sizeof item, "%.*s", (int)n, text);
	errno = 0;
	if (n < sizeof item && item[0] != '-')
		v = strtoull(item, &end, 10);
	if (end && (shift = suffix_shift(*end)) != 0) {
		v = v > MAX_LEN >> shift ? MAX_LEN + 1 : v << shift;
		end++;
	}
	if (errno || !end || end == item || *end || v == 0 || v > MAX_LEN)
		mg_usage_error(CMD,
			       "bad length '%.*s' in --lengths (want 1 to 64M, such as 64,4K,1M)",
			       (int)n, text);
	return (size_t)v;
}

void mg_speed_parse_lengths(struct speed *s, const char *list)
{
	s->nlen = 0;
	while (*list) {
		size_t n = strcspn(list, ",");
		if (n) {
			if (s->nlen == MAX_LENGTHS)
				mg_usage_error(CMD, "more than %d lengths in --lengths",
					       MAX_LENGTHS);
			s->lens[s->nlen++] = parse_length(list, n);
		}
		list += n + (list[n] == ',');
	}
	if (!s->nlen)
		mg_usage_error(CMD, "--lengths is empty");
}

void mg_speed_set_lengths(struct speed *s, const size_t *lens, size_t n)
{
	memcpy(s->lens, lens, n * sizeof *lens);
	s->nlen = n;
}

int mg_speed_is_page_op(enum mg_op op)
{
	return op == MG_COPY_PAGE || op == MG_CLEAR_PAGE;
}

/* One operation for all, each listed once, none known to be broken: a
 * broken routine called on plain buffers could take the run down. */
void mg_speed_check_variants(const struct speed *s)
{
	for (size_t i = 0; i < s->nv; i++) {
		const struct mg_variant *v = s->v[i];
		if (v->op != s->v[0]->op)
			mg_usage_error(CMD,
				       "%s is a %s and %s a %s: all variants must have the same "
				       "operation",
				       v->name, mg_op_name(v->op), s->v[0]->name,
				       mg_op_name(s->v[0]->op));
		for (size_t j = 0; j < i; j++)
			if (s->v[j] == v)
				mg_usage_error(CMD, "%s is listed twice in --variant", v->name);
		if (v->expect && !(v->expect & MG_EXPECT_ONLY_HUGE))
			mg_usage_error(CMD,
				       "%s is known-bad (it fails the sweep); speed times only "
				       "correct variants",
				       v->name);
	}
}

void mg_speed_check_lengths(const struct speed *s)
{
	if (!mg_speed_is_page_op(s->v[0]->op))
		return;
	for (size_t l = 0; l < s->nlen; l++)
		if (s->lens[l] != PAGE)
			mg_usage_error(CMD, "%s takes %d bytes only; --lengths=%zu does not apply",
				       mg_op_name(s->v[0]->op), PAGE, s->lens[l]);
}

void mg_speed_note_skipped(struct speed *s)
{
	s->skip = calloc(s->nv, sizeof *s->skip);
	if (!s->skip)
		mg_usage_error(CMD, "out of memory");
	for (size_t i = 0; i < s->nv; i++) {
		char needs[64];
		if (mg_cpu_missing(s->v[i]->features, needs, sizeof needs)) {
			snprintf(s->skip[i], sizeof s->skip[i], "needs %s", needs);
			printf("SKIP %s: %s\n", s->v[i]->name, s->skip[i]);
		}
	}
}

void mg_speed_prepare(struct speed *s)
{
	size_t max_len = 0;

	for (size_t l = 0; l < s->nlen; l++)
		max_len = s->lens[l] > max_len ? s->lens[l] : max_len;
	s->src = map_buffer(max_len + LINE, 0xa5);
	s->dst = map_buffer(max_len + LINE, 0x3c);
	/* Separate buffers with dst below src: memmove's dispatch then takes its
	 * forward path, as for a memcpy; the "ovl" cases time the other. */
	if (s->dst > s->src) {
		unsigned char *t = s->src;
		s->src = s->dst;
		s->dst = t;
	}
	s->cycles = calloc(CACHE_COUNT * s->nlen * s->nalign * s->nv, sizeof *s->cycles);
	if (!s->cycles)
		mg_usage_error(CMD, "out of memory");
	mg_speed_calibrate_clock();
}
