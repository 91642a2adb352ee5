/* memgate speed's output: the introduction, one table per cache (a row per
 * length and alignment, a column per variant, and the ratio to the best
 * incumbent), the summary, and the --data rows. */
#include "clock.h"
#include "speed.h"
#include "table.h"

#include <math.h> /* NAN and isnan only: memgate links without libm */
#include <stdio.h>
#include <string.h>

static const char *const cache_name[CACHE_COUNT] = {"hot", "cold"};
static const char *const cache_about[CACHE_COUNT] = {
	"the same buffers, called again and again",
	"the buffers flushed from every cache level before each call",
};

static void format_len(size_t len, char *out, size_t size)
{
	if (len >= (1u << 20) && len % (1u << 20) == 0)
		snprintf(out, size, "%zuM", len >> 20);
	else if (len >= 1024 && len % 1024 == 0)
		snprintf(out, size, "%zuK", len >> 10);
	else
		snprintf(out, size, "%zu", len);
}

static int column_width(const struct mg_variant *v)
{
	int w = (int)strlen(v->name);
	return w < 10 ? 10 : w;
}

static void print_header(const struct speed *s, enum cache c)
{
	printf("\n%s cache: %s\n", cache_name[c], cache_about[c]);
	printf("%8s %8s", "len", "src/dst");
	for (size_t i = 0; i < s->nv; i++)
		printf("  %*s", column_width(s->v[i]), s->v[i]->name);
	printf("  vs best incumbent\n");
}

/* The variant under test over the fastest other variant in this cell:
 * below 1 it is faster. Returns NAN when either side has no figure. */
static double ratio(const struct speed *s, enum cache c, size_t l, size_t a, size_t *best_i)
{
	double best = NAN;

	for (size_t i = 1; i < s->nv; i++) {
		double t = *cell(s, c, l, a, i);
		if (!isnan(t) && (isnan(best) || t < best)) {
			best = t;
			*best_i = i;
		}
	}
	if (isnan(best) || isnan(*cell(s, c, l, a, 0)))
		return NAN;
	/* A call costs a cycle at least, whatever the clock could tell. */
	return *cell(s, c, l, a, 0) / (best > 1 ? best : 1);
}

static void print_row(const struct speed *s, enum cache c, size_t l, size_t a)
{
	char len[24];
	size_t best_i = 0;

	format_len(s->lens[l], len, sizeof len);
	printf("%8s %8s", len, s->aligns[a].label);
	for (size_t i = 0; i < s->nv; i++) {
		double t = *cell(s, c, l, a, i);
		int w = column_width(s->v[i]);
		if (s->skip[i][0])
			printf("  %*s", w, "SKIP");
		else if (isnan(t))
			printf("  %*s", w, "-"); /* its contract excludes this case */
		else
			printf("  %*.*f", w, t < 100 ? 1 : 0, t);
	}
	double q = ratio(s, c, l, a, &best_i);
	if (isnan(q))
		printf("  -\n");
	else
		printf("  %.2f %s\n", q, s->v[best_i]->name);
}

void mg_speed_print_table(const struct speed *s, enum cache c)
{
	print_header(s, c);
	for (size_t l = 0; l < s->nlen; l++)
		for (size_t a = 0; a < s->nalign; a++)
			print_row(s, c, l, a);
}

struct extreme {
	double q;
	size_t l, a;
};

static void print_extreme(const struct speed *s, const char *what, const struct extreme *e)
{
	char len[24];

	format_len(s->lens[e->l], len, sizeof len);
	printf("; %s %.2f at %s %s", what, e->q, len, s->aligns[e->a].label);
}

/* Per cache: in how many cases the variant under test wins, and its worst
 * and best ratio, where a gate's --max-slowdown would look. */
void mg_speed_print_summary(const struct speed *s)
{
	if (s->nv < 2)
		return;
	printf("\n");
	for (int c = 0; c < CACHE_COUNT; c++) {
		struct extreme worst = {NAN, 0, 0}, best = {NAN, 0, 0};
		size_t n = 0, faster = 0, best_i;
		for (size_t l = 0; l < s->nlen; l++)
			for (size_t a = 0; a < s->nalign; a++) {
				double q = ratio(s, (enum cache)c, l, a, &best_i);
				if (isnan(q))
					continue;
				n++;
				faster += q < 1;
				if (isnan(worst.q) || q > worst.q)
					worst = (struct extreme){q, l, a};
				if (isnan(best.q) || q < best.q)
					best = (struct extreme){q, l, a};
			}
		printf("%s, %s cache: ", s->v[0]->name, cache_name[c]);
		if (!n) {
			printf("nothing to compare (skipped)\n");
			continue;
		}
		printf("faster than the best incumbent in %zu of %zu cases", faster, n);
		print_extreme(s, n > 1 ? "worst" : "ratio", &worst);
		if (n > 1)
			print_extreme(s, "best", &best);
		printf("\n");
	}
}

/* The last line counts the rows: a reader (the gate's --max-slowdown) can
 * tell a whole file from one cut short. */
void mg_speed_write_data(const struct speed *s, FILE *out)
{
	size_t rows = 0;

	fprintf(out, "# variant\tcache\talign\tlen\t%s\tns\n", CLOCK_UNIT);
	/* Named even when skipped here: a plot must not draw another in its place. */
	fprintf(out, "# under test: %s\n", s->v[0]->name);
	for (int c = 0; c < CACHE_COUNT; c++)
		for (size_t l = 0; l < s->nlen; l++)
			for (size_t a = 0; a < s->nalign; a++)
				for (size_t i = 0; i < s->nv; i++) {
					double t = *cell(s, (enum cache)c, l, a, i);
					if (isnan(t))
						continue;
					fprintf(out, "%s\t%s\t%s\t%zu\t%.1f\t%.2f\n", s->v[i]->name,
						cache_name[c], s->aligns[a].label, s->lens[l], t,
						t / mg_speed_ticks_per_ns);
					rows++;
				}
	fprintf(out, "# end: %zu rows\n", rows);
}

static const char *align_notes(enum mg_op op)
{
	switch (op) {
	case MG_MEMMOVE:
		return "; separate buffers, dst below src; ovl: one buffer, dst = src + 2 "
		       "(a backward move) or src - 2";
	case MG_MEMSET: return " (no source)";
	case MG_MEMCPY:
	case MG_MEMPCPY: return "; separate buffers";
	case MG_CLEAR_PAGE: return " (page aligned; no source)";
	default: return " (page aligned)";
	}
}

void mg_speed_print_intro(const struct speed *s)
{
	printf("memgate speed: %s (%s) against", s->v[0]->name, mg_op_name(s->v[0]->op));
	for (size_t i = 1; i < s->nv; i++)
		printf("%s %s", i > 1 ? "," : "", s->v[i]->name);
	printf("%s\n", s->nv > 1 ? "" : " nothing");
	printf("%s per call, best of %u rounds", CLOCK_UNIT, s->rounds);
	if (CLOCK_IS_TSC)
		printf("; time-stamp counter at %.2f GHz, 1 cycle = %.3f ns", mg_speed_ticks_per_ns,
		       1 / mg_speed_ticks_per_ns);
	printf("\nsrc/dst: addresses mod 64%s\n", align_notes(s->v[0]->op));
	if (s->nv > 1)
		printf("vs best incumbent: %s over the fastest other, below 1.00 is faster\n",
		       s->v[0]->name);
}
