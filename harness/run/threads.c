/* The threads stage's cases. A threaded case costs a thread start per
 * worker and waits for the threads to be scheduled (milliseconds on a
 * loaded machine): lengths to 16 KiB (the workers' sandboxes' limit), at
 * either guard page and at odd alignments, memmove also overlapping either
 * way, each in 2 and in 4 threads. A page routine gets its page in each. */
#include "threads.h"
#include "rng.h"

static const size_t lengths[] = {0, 1, 7, 16, 33, 64, 100, 255, 256, 1000, 4096, 16384};
static const unsigned counts[] = {2, 4};
#define REPEATS 1
#define N(a)	(sizeof(a) / sizeof((a)[0]))

struct emitter {
	mg_case_fn fn;
	void *ctx;
	uint64_t seed, count;
	int stopped;
};

static void emit(struct emitter *e, struct mg_case *c)
{
	char why[160];

	for (int i = 0; i < REPEATS && !e->stopped; i++) {
		mg_case_vary_entry(c, e->count);
		c->seed = mg_mix64(e->seed ^ (0x74687264ull + e->count++)); /* "thrd" */
		if (mg_case_valid(c, why, sizeof why))
			e->stopped = e->fn(c, e->ctx);
	}
}

static struct mg_case base_case(const struct mg_variant *v, size_t len, unsigned threads)
{
	struct mg_case c = mg_situation_case(v, len);

	c.threads = threads;
	return c;
}

/* Flush against the guard page after; at odd alignments before it; and
 * memmove's buffers overlapping each way. */
static void emit_length(struct emitter *e, const struct mg_variant *v, size_t len, unsigned n)
{
	struct mg_case c = base_case(v, len, n);

	emit(e, &c);
	c.place = MG_PLACE_BEFORE;
	c.src_align = 5;
	c.dst_align = 59;
	emit(e, &c);
	if (v->op != MG_MEMMOVE || len < 2)
		return;
	c.place = MG_PLACE_AFTER;
	mg_case_set_overlap(&c, 3);
	emit(e, &c);
	mg_case_set_overlap(&c, -(long)(len / 2));
	emit(e, &c);
}

void mg_threads_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
		      mg_case_fn fn, void *ctx)
{
	struct emitter e = {fn, ctx, seed, 0, 0};

	(void)profile; /* the same cases in both: they are few */
	for (size_t k = 0; k < N(counts); k++) {
		if (v->contract.fixed_len) {
			struct mg_case c = base_case(v, v->contract.fixed_len, counts[k]);
			emit(&e, &c);
			continue;
		}
		for (size_t i = 0; i < N(lengths); i++)
			emit_length(&e, v, lengths[i], counts[k]);
	}
}
