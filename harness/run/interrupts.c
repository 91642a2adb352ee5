/* The interrupts stage's cases. A stepped case costs a trap per
 * instruction (microseconds each), so the stage is short: every length to
 * 32 and a spread to 256, each with the buffers flush against the guard
 * page and at an unaligned pair, memmove also overlapping either way; then
 * 1000 and 4096 bytes once each (a byte loop takes some 20,000 stops for a
 * page). */
#include "interrupts.h"
#include "interrupt.h"
#include "rng.h"

#include <stdint.h>

struct emitter {
	mg_case_fn fn;
	void *ctx;
	uint64_t seed, count;
	int stopped;
};

static const size_t middle[] = {33, 47, 63, 64, 65, 100, 127, 128, 255, 256};
static const size_t longest[] = {1000, 4096};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void emit(struct emitter *e, struct mg_case *c)
{
	char why[160];

	mg_case_vary_entry(c, e->count);
	if (e->stopped || !mg_case_valid(c, why, sizeof why))
		return;
	c->seed = mg_mix64(e->seed ^ (0x696e7472ull + e->count++)); /* "intr" */
	e->stopped = e->fn(c, e->ctx);
}

/* Flush against the guard page after, then an unaligned pair before it. */
static void emit_placed(struct emitter *e, struct mg_case *c)
{
	c->place = MG_PLACE_AFTER;
	c->src_align = c->dst_align = (unsigned)(-c->len & (MG_ALIGN_MOD - 1));
	emit(e, c);
	c->place = MG_PLACE_BEFORE;
	c->src_align = 3;
	c->dst_align = 61;
	emit(e, c);
}

static struct mg_case base_case(const struct mg_variant *v, size_t len)
{
	struct mg_case c = mg_situation_case(v, len);

	c.interrupt = true;
	return c;
}

/* One case, flush against the guard page after. */
static void emit_once(struct emitter *e, const struct mg_variant *v, size_t len)
{
	struct mg_case c = base_case(v, len);

	emit(e, &c);
}

static void emit_length(struct emitter *e, const struct mg_variant *v, size_t len)
{
	struct mg_case c = base_case(v, len);

	emit_placed(e, &c);
	if (v->op != MG_MEMMOVE || len < 2)
		return;
	c.place = MG_PLACE_AFTER;
	c.src_align = 0;
	mg_case_set_overlap(&c, 1);
	emit(e, &c);
	mg_case_set_overlap(&c, -(long)(len / 2));
	emit(e, &c);
}

void mg_interrupts_sweep(const struct mg_variant *v, enum mg_profile profile, uint64_t seed,
			 mg_case_fn fn, void *ctx)
{
	struct emitter e = {fn, ctx, seed, 0, 0};
	char why[160];

	(void)profile; /* the same few cases in both: each is costly */
	if (!mg_situation_interrupt.possible(why, sizeof why))
		return;
	if (v->contract.fixed_len) {
		for (int i = 0; i < 4; i++) /* a page each time: four fills */
			emit_once(&e, v, v->contract.fixed_len);
		return;
	}
	for (size_t len = 0; len <= 32; len++)
		emit_length(&e, v, len);
	for (size_t i = 0; i < N(middle); i++)
		emit_length(&e, v, middle[i]);
	for (size_t i = 0; i < N(longest); i++)
		emit_once(&e, v, longest[i]);
}
