/* memgate speed: the variant under test against the incumbents of its
 * operation, in cycles per call, the way the kernel review threads compared
 * them: one row per length and alignment, one column per variant, hot cache
 * and cold cache.
 *
 * Each figure is the best of N rounds, a round being one pass over the whole
 * table with every variant in turn: the shared machine's noise, which only
 * ever slows a call down, then falls on every variant alike. Variants are
 * called directly (no ABI trampoline) on plain page-aligned buffers: this
 * times the routine, not the harness. Speed is never a verdict here (the
 * gate decides what a slowdown means): the exit status is 0, 1 when the data
 * file could not be written, 2 on bad usage. */
#include "call.h"
#include "cpu.h"
#include "options.h"
#include "table.h"
#include "verdict.h"

#include <errno.h>
#include <math.h> /* NAN and isnan only: memgate links without libm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char help[] =
	"usage: memgate speed --variant=NEW,OLD1,OLD2,... [OPTIONS]\n"
	"  --variant=LIST   the variant under test first, then those to compare it with\n"
	"                   (all of one operation)\n"
	"  --lengths=LIST   lengths in bytes, K and M allowed (default 8,16,...,1M;\n"
	"                   page operations take 4096 only)\n"
	"  --rounds=N       best of N rounds per figure (default %d; --quick %d)\n"
	"  --data=FILE.tsv  also write variant, cache, align, len, cycles, ns rows,\n"
	"                   then a last line '# end: N rows'\n"
	"  --quick          a few lengths and rounds (for tests)\n"
	"  --hide-feature=LIST  act as if the CPU lacked these features\n"
	"Cycles are time-stamp counter ticks. Exit status: 0; 1 if --data could not be\n"
	"written; 2 on bad usage.\n";

enum { O_VARIANT = 1, O_LENGTHS, O_ROUNDS, O_DATA, O_QUICK, O_HIDE, O_HELP };

static const struct option opts[] = {
	{"variant", required_argument, NULL, O_VARIANT},
	{"lengths", required_argument, NULL, O_LENGTHS},
	{"rounds", required_argument, NULL, O_ROUNDS},
	{"data", required_argument, NULL, O_DATA},
	{"quick", no_argument, NULL, O_QUICK},
	{"hide-feature", required_argument, NULL, O_HIDE},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

#define CMD	     "speed"
#define MAX_LENGTHS  64
#define MAX_LEN	     ((size_t)64 << 20)
#define MAX_ROUNDS   1000
#define QUICK_ROUNDS 3
#define PAGE	     4096
#define LINE	     64
#define SET_VALUE    0x5a
/* The time-stamp counter of this machine (a VM on AMD) reads in steps of
 * 21 ticks, so no single short call can be timed. A hot figure is one batch
 * of calls, long enough (about 64 KiB moved) for that step to vanish in it.
 * A cold figure is the mean of up to 16 calls, each flushed and timed on its
 * own: their start falls at random within a step, so the steps average out. */
#define HOT_BATCH_BYTES	 65536
#define HOT_BATCH_MAX	 256
#define COLD_BATCH_BYTES 32768
#define CALIBRATE_NS	 20000000.0

static const size_t default_lengths[] = {
	8,	 16,	  32,	   64,	     128,      256,	  512,	   1 << 10,
	2 << 10, 4 << 10, 8 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
};
static const size_t quick_lengths[] = {8, 256, 4 << 10, 64 << 10};

/* Source and destination address mod 64: both aligned, and two unaligned
 * pairs whose heads differ, as the threads' "unaligned" rows did. memmove
 * adds the case it exists for: one buffer, dst = src + 2 (copied backward)
 * and dst = src - 2 (forward). */
struct align_case {
	unsigned src, dst;
	int overlap; /* one buffer: dst = src + (dst - src), e.g. src + 2 */
	const char *label;
};
static const struct align_case copy_aligns[] = {
	{0, 0, 0, "0/0"},     {1, 3, 0, "1/3"},	    {7, 60, 0, "7/60"},
	{1, 3, 1, "1/3 ovl"}, {3, 1, 1, "3/1 ovl"},
};
static const struct align_case set_aligns[] = {
	{0, 0, 0, "-/0"}, {0, 3, 0, "-/3"}, {0, 60, 0, "-/60"}};
static const struct align_case page_aligns[] = {{0, 0, 0, "0/0"}};
static const struct align_case clear_aligns[] = {{0, 0, 0, "-/0"}};

static const struct align_case *align_cases(enum mg_op op, size_t *n)
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

enum cache { HOT, COLD, CACHE_COUNT };
static const char *const cache_name[CACHE_COUNT] = {"hot", "cold"};
static const char *const cache_about[CACHE_COUNT] = {
	"the same buffers, called again and again",
	"the buffers flushed from every cache level before each call",
};

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

/* ---- the clock ---- */

static double timer_floor;  /* what an empty measurement reads, subtracted */
static double ticks_per_ns; /* 1 where the clock is clock_gettime itself */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(MG_SPEED_NO_TSC)
#define CLOCK_IS_TSC   1
#define CLOCK_UNIT     "cycles"
#define COLD_CALLS_MAX 16
#define DEFAULT_ROUNDS 101

/* mfence: the stores and flushes before it are complete, so a cold call
 * starts cold and a call's own stores count against it. lfence: rdtsc waits
 * for everything before it, and nothing after starts before it reads. */
static inline uint64_t stamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("mfence\n\tlfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static void flush(const unsigned char *p, size_t len)
{
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)(LINE - 1); a < (uintptr_t)p + len; a += LINE)
		__asm__ volatile("clflush %0" : : "m"(*(const volatile char *)a));
}

/* Out of every cache level, by address: this does not depend on the cache
 * sizes, which a VM may misreport (this one claims a 508 MiB L3). */
static void make_cold(const unsigned char *src, const unsigned char *dst, size_t len)
{
	if (src)
		flush(src, len);
	flush(dst, len);
}
#else
/* Elsewhere, for now: clock_gettime, and one cold call per round, as the
 * flush below costs milliseconds. (MG_SPEED_NO_TSC builds this on x86.) */
#define CLOCK_IS_TSC   0
#define CLOCK_UNIT     "ns"
#define COLD_CALLS_MAX 1
#define DEFAULT_ROUNDS 11
#define EVICT_BYTES    ((size_t)64 << 20)

static inline uint64_t stamp(void)
{
	return now_ns();
}

/* Without a user-space cache flush, write over a region larger than most
 * last-level caches: slow, and only as cold as the region is large. */
static void make_cold(const unsigned char *src, const unsigned char *dst, size_t len)
{
	static volatile unsigned char *evict;

	(void)src;
	(void)dst;
	(void)len;
	if (!evict) {
		evict = mmap(NULL, EVICT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		if (evict == MAP_FAILED) {
			fprintf(stderr, "memgate speed: cannot map the eviction region\n");
			exit(1);
		}
	}
	for (size_t i = 0; i < EVICT_BYTES; i += LINE)
		evict[i]++;
}
#endif

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The cost of the two stamps around a measurement, subtracted from each.
 * A mean, not a minimum: with a coarse counter the minimum is a step too
 * low. The slowest tenth (interrupts) is left out. */
static double measure_timer_floor(void)
{
	enum { SAMPLES = 1000, KEPT = SAMPLES * 9 / 10 };
	uint64_t d[SAMPLES];
	double sum = 0;

	for (int i = 0; i < SAMPLES; i++) {
		uint64_t t0 = stamp();
		d[i] = stamp() - t0;
	}
	qsort(d, SAMPLES, sizeof d[0], compare_u64);
	for (int i = 0; i < KEPT; i++)
		sum += (double)d[i];
	return sum / KEPT;
}

static void calibrate_clock(void)
{
	uint64_t t0 = stamp(), n0 = now_ns(), n1;

	timer_floor = measure_timer_floor();
	do
		n1 = now_ns();
	while ((double)(n1 - n0) < CALIBRATE_NS);
	ticks_per_ns = (double)(stamp() - t0) / (double)(n1 - n0);
	if (!CLOCK_IS_TSC)
		ticks_per_ns = 1;
}

/* ---- one measurement ---- */

static unsigned batch(size_t len, size_t bytes, unsigned max)
{
	size_t calls = bytes / len;

	return calls < 1 ? 1 : calls > max ? max : (unsigned)calls;
}

/* Ticks per call of `calls` calls in a row, less the stamps' cost. */
static double time_calls(const struct mg_variant *v, unsigned char *dst, const unsigned char *src,
			 size_t len, unsigned calls)
{
	uint64_t t0 = stamp();

	for (unsigned i = 0; i < calls; i++)
		mg_call_direct(v, dst, src, SET_VALUE, len);
	return ((double)(stamp() - t0) - timer_floor) / calls;
}

static int reads_source(enum mg_op op)
{
	return op == MG_MEMCPY || op == MG_MEMMOVE || op == MG_COPY_PAGE || op == MG_MEMPCPY;
}

/* Cycles per call, one round. Hot: one call to warm up (the previous round
 * ran another variant), then a batch. Cold: calls each made after flushing
 * what it touches; the code stays warm, as at a real call site. */
static double time_round(const struct mg_variant *v, enum cache cache, unsigned char *dst,
			 const unsigned char *src, size_t len)
{
	unsigned calls;
	double sum = 0;

	if (cache == HOT) {
		mg_call_direct(v, dst, src, SET_VALUE, len);
		return time_calls(v, dst, src, len, batch(len, HOT_BATCH_BYTES, HOT_BATCH_MAX));
	}
	calls = batch(len, COLD_BATCH_BYTES, COLD_CALLS_MAX);
	for (unsigned i = 0; i < calls; i++) {
		make_cold(reads_source(v->op) ? src : NULL, dst, len);
		sum += time_calls(v, dst, src, len, 1);
	}
	return sum / calls;
}

static int contract_allows(const struct mg_variant *v, size_t len, const struct align_case *a)
{
	const struct mg_contract *k = &v->contract;

	if (k->fixed_len)
		return len == k->fixed_len && a->src == 0 && a->dst == 0;
	return a->src % k->src_align == 0 && a->dst % k->dst_align == 0 &&
	       len % k->len_multiple == 0;
}

static double *cell(const struct speed *s, enum cache c, size_t l, size_t a, size_t v)
{
	return &s->cycles[((c * s->nlen + l) * s->nalign + a) * s->nv + v];
}

/* One round of one cell: every variant once, starting at the next one each
 * round, so that none always runs first. */
static void measure_cell(struct speed *s, unsigned round, enum cache c, size_t l, size_t a)
{
	const struct align_case *al = &s->aligns[a];
	size_t len = s->lens[l];

	for (size_t k = 0; k < s->nv; k++) {
		size_t i = (k + round) % s->nv;
		const struct mg_variant *v = s->v[i];
		double *best = cell(s, c, l, a, i);
		if (s->skip[i][0] || !contract_allows(v, len, al))
			continue;
		unsigned char *src = (al->overlap ? s->dst : s->src) + al->src;
		unsigned char *dst = s->dst + al->dst;
		double t = time_round(v, c, dst, src, len);
		t = t > 0 ? t : 0; /* the floor is a mean: it can overshoot */
		if (isnan(*best) || t < *best)
			*best = t;
	}
}

/* A round is one pass over the whole table, not N tries of one cell in a
 * row: a burst of noise from the VM's neighbours then spoils a round of
 * many cells, which the other rounds make up for, and not every round of
 * a few. */
static void measure_all(struct speed *s)
{
	size_t cells = CACHE_COUNT * s->nlen * s->nalign * s->nv;

	for (size_t i = 0; i < cells; i++)
		s->cycles[i] = NAN;
	for (unsigned r = 0; r < s->rounds; r++)
		for (int c = 0; c < CACHE_COUNT; c++)
			for (size_t l = 0; l < s->nlen; l++)
				for (size_t a = 0; a < s->nalign; a++)
					measure_cell(s, r, (enum cache)c, l, a);
}

/* ---- the table ---- */

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

static void print_table(const struct speed *s, enum cache c)
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
static void print_summary(const struct speed *s)
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
static void write_data(const struct speed *s, FILE *out)
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
						t / ticks_per_ns);
					rows++;
				}
	fprintf(out, "# end: %zu rows\n", rows);
}

/* ---- set-up ---- */

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

static void parse_lengths(struct speed *s, const char *list)
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

static void set_lengths(struct speed *s, const size_t *lens, size_t n)
{
	memcpy(s->lens, lens, n * sizeof *lens);
	s->nlen = n;
}

static int is_page_op(enum mg_op op)
{
	return op == MG_COPY_PAGE || op == MG_CLEAR_PAGE;
}

/* One operation for all, each listed once, none known to be broken: a
 * broken routine called on plain buffers could take the run down. */
static void check_variants(const struct speed *s)
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

static void check_lengths(const struct speed *s)
{
	if (!is_page_op(s->v[0]->op))
		return;
	for (size_t l = 0; l < s->nlen; l++)
		if (s->lens[l] != PAGE)
			mg_usage_error(CMD, "%s takes %d bytes only; --lengths=%zu does not apply",
				       mg_op_name(s->v[0]->op), PAGE, s->lens[l]);
}

static void note_skipped(struct speed *s)
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

static void prepare(struct speed *s)
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
	calibrate_clock();
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

static void print_intro(const struct speed *s)
{
	printf("memgate speed: %s (%s) against", s->v[0]->name, mg_op_name(s->v[0]->op));
	for (size_t i = 1; i < s->nv; i++)
		printf("%s %s", i > 1 ? "," : "", s->v[i]->name);
	printf("%s\n", s->nv > 1 ? "" : " nothing");
	printf("%s per call, best of %u rounds", CLOCK_UNIT, s->rounds);
	if (CLOCK_IS_TSC)
		printf("; time-stamp counter at %.2f GHz, 1 cycle = %.3f ns", ticks_per_ns,
		       1 / ticks_per_ns);
	printf("\nsrc/dst: addresses mod 64%s\n", align_notes(s->v[0]->op));
	if (s->nv > 1)
		printf("vs best incumbent: %s over the fastest other, below 1.00 is faster\n",
		       s->v[0]->name);
}

/* The flags, checked before anything is measured or written. */
struct speed_flags {
	const char *names, *lengths, *data;
	unsigned long long rounds; /* 0: not given */
	int quick;
};

static int parse_flags(int argc, char **argv, struct speed_flags *f)
{
	int c;

	while ((c = mg_getopt(argc, argv, CMD, opts)) != -1) {
		if (c == O_VARIANT)
			f->names = optarg;
		else if (c == O_LENGTHS)
			f->lengths = optarg;
		else if (c == O_ROUNDS) {
			f->rounds = mg_parse_u64(CMD, "rounds", optarg);
			if (f->rounds < 1 || f->rounds > MAX_ROUNDS)
				mg_usage_error(CMD, "bad value '%s' for --rounds (want 1 to %d)",
					       optarg, MAX_ROUNDS);
		} else if (c == O_DATA)
			f->data = optarg;
		else if (c == O_QUICK)
			f->quick = 1;
		else if (c == O_HIDE)
			mg_parse_hidden_features(CMD, optarg);
		else if (c == O_HELP) {
			printf(help, DEFAULT_ROUNDS, QUICK_ROUNDS);
			return 0;
		}
	}
	mg_no_operands(argc, argv, CMD);
	if (!f->names)
		mg_usage_error(CMD, "--variant is required (the variant under test first, then "
				    "those to compare it with)");
	return 1;
}

static void configure(struct speed *s, const struct speed_flags *f)
{
	s->v = mg_select_variants(CMD, "main", f->names, &s->nv);
	if (!s->nv)
		mg_usage_error(CMD, "--variant names no variant");
	check_variants(s);
	if (f->lengths)
		parse_lengths(s, f->lengths);
	else if (is_page_op(s->v[0]->op))
		set_lengths(s, (const size_t[]){PAGE}, 1);
	else if (f->quick)
		set_lengths(s, quick_lengths, sizeof quick_lengths / sizeof quick_lengths[0]);
	else
		set_lengths(s, default_lengths, sizeof default_lengths / sizeof default_lengths[0]);
	check_lengths(s);
	s->aligns = align_cases(s->v[0]->op, &s->nalign);
	s->rounds = f->rounds ? (unsigned)f->rounds : f->quick ? QUICK_ROUNDS : DEFAULT_ROUNDS;
}

int mg_cmd_speed(int argc, char **argv)
{
	struct speed_flags f = {NULL, NULL, NULL, 0, 0};
	struct speed s;
	FILE *data = NULL;
	uint64_t t0 = now_ns();

	memset(&s, 0, sizeof s);
	if (!parse_flags(argc, argv, &f))
		return 0;
	configure(&s, &f);
	/* Opened first: a bad path is found before the measuring, not after. */
	if (f.data && !(data = fopen(f.data, "w")))
		mg_usage_error(CMD, "cannot write --data=%s: %s", f.data, strerror(errno));
	prepare(&s);
	print_intro(&s);
	note_skipped(&s);
	measure_all(&s);
	for (int c = 0; c < CACHE_COUNT; c++)
		print_table(&s, (enum cache)c);
	print_summary(&s);
	printf("measured in %.1f s\n", (double)(now_ns() - t0) * 1e-9);
	if (data) {
		write_data(&s, data);
		if (ferror(data) | fclose(data)) {
			fprintf(stderr, "memgate speed: writing %s failed\n", f.data);
			return 1;
		}
		printf("rows written to %s\n", f.data);
	}
	return 0;
}
