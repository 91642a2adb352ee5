/* The fuzz input decoder: every byte string decodes to a valid case of its
 * target, every case it decodes encodes back to an input that decodes to
 * the same case, and the lengths it picks put weight on the edges. And the
 * coverage cells (cells.c) tell the spots apart. */
#include "abi.h"
#include "cells.h"
#include "cpu.h"
#include "decode.h"
#include "rng.h"
#include "table.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A family's target gets enough inputs for the edge weights to show
 * (check_edges: each edge at least one input in a thousand); a target
 * pinned to a variant, which only narrows its contract, a tenth: validity
 * and the round trip: about 2 s of CPU in all here, where 200,000 for
 * every target took 17. */
#define INPUTS_PER_FAMILY 200000u
#define INPUTS_PER_VARIANT 20000u

static unsigned failures;

__attribute__((format(printf, 1, 2))) static void failure(const char *format, ...);

static void failure(const char *format, ...)
{
	va_list args;

	if (++failures > 10)
		return;
	va_start(args, format);
	fputs("FAIL: ", stdout);
	vprintf(format, args);
	va_end(args);
	putchar('\n');
}

static const char *describe(const struct mg_case *c)
{
	static char text[512];

	mg_case_describe(c, text, sizeof text);
	return text;
}

/* Random sizes, mostly around the 24 bytes a case takes, some empty and
 * some long; random bytes. */
static size_t random_input(struct mg_rng *rng, uint8_t *buf, size_t cap)
{
	size_t size = mg_rng_below(rng, 8) == 0 ? mg_rng_below(rng, cap + 1)
						: mg_rng_below(rng, 2 * MG_INPUT_BYTES + 1);
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)mg_rng_next(rng);
	return size;
}

/* A spot case's coverage cell is not the one it would have at the guard
 * pages: coverage shows which placements the inputs reached. */
static void check_spot_cell(const struct mg_target *t, const struct mg_case *c)
{
	struct mg_case at_guard = *c;

	if (c->spot == MG_SPOT_GUARD)
		return;
	at_guard.spot = MG_SPOT_GUARD;
	at_guard.spot_arg = 0;
	if (mg_cell_of(t, c) == mg_cell_of(t, &at_guard))
		failure("%s: a %s case shares its coverage cell with the guard-page case: %s",
			t->family, mg_spot_name(c->spot), describe(c));
}

static void check_one(const struct mg_target *t, const uint8_t *buf, size_t size,
		      unsigned long *lengths)
{
	struct mg_case c, back;
	uint8_t again[MG_INPUT_MAX_BYTES];
	char why[256];

	mg_decode(t, buf, size, &c);
	if (!mg_case_valid(&c, why, sizeof why))
		failure("%s: %zu-byte input decodes to an invalid case: %s (%s)", t->family, size,
			why, describe(&c));
	if (c.len > t->max_len && !c.variant->contract.fixed_len)
		failure("%s: length %zu over the maximum %zu", t->family, c.len, t->max_len);
	mg_encode(t, &c, again);
	mg_decode(t, again, mg_input_size(&c), &back);
	if (!mg_case_equal(&c, &back))
		failure("%s: encoding does not round-trip: %s", t->family, describe(&c));
	if (c.len <= 65536)
		lengths[c.len]++;
	check_spot_cell(t, &c);
}

/* The edges get weight: each must come up often, far above uniform. */
static void check_edges(const char *family, const unsigned long *lengths, unsigned long total)
{
	static const size_t edges[] = {0, 1, 2, 7, 8, 15, 16, 17, 63, 64, 65, 255, 256, 4095, 4096};

	if (strcmp(family, "page") == 0)
		return;
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		if (lengths[edges[i]] * 1000 < total)
			failure("%s: length %zu comes up in only %lu of %lu inputs", family,
				edges[i], lengths[edges[i]], total);
}

static unsigned long lengths[65537];

static void check_target(const char *family, const char *pinned, struct mg_rng *rng)
{
	struct mg_target t;
	uint8_t buf[4096];
	char why[256];
	unsigned inputs = pinned ? INPUTS_PER_VARIANT : INPUTS_PER_FAMILY;

	if (!mg_target_init(&t, family, pinned, why, sizeof why)) {
		failure("%s: %s", family, why);
		return;
	}
	memset(lengths, 0, sizeof lengths);
	check_one(&t, buf, 0, lengths); /* the empty input */
	for (unsigned i = 0; i < inputs; i++)
		check_one(&t, buf, random_input(rng, buf, sizeof buf), lengths);
	if (!pinned)
		check_edges(family, lengths, inputs);
}

/* Every stack offset a variant's contract allows is reached, and an input
 * too short for the stack byte is the harness's old alignment: offset 0. */
static void check_stack_offsets(const char *family, const char *pinned)
{
	struct mg_target t;
	uint8_t input[MG_INPUT_STACK_BYTES] = {0};
	unsigned seen = 0, step;
	struct mg_case c;
	char why[256];

	if (!mg_target_init(&t, family, pinned, why, sizeof why)) {
		failure("%s: %s", family, why);
		return;
	}
	step = mg_stack_step(t.pool[0]);
	for (unsigned b = 0; b < 256; b++) {
		input[0] = (uint8_t)b;
		mg_decode(&t, input, sizeof input, &c);
		if (c.stack_offset % step || c.stack_offset >= MG_ALIGN_MOD)
			failure("%s: stack byte %u decodes to offset %u", pinned, b, c.stack_offset);
		else
			seen |= 1u << (c.stack_offset / step);
	}
	if (seen != (1u << (MG_ALIGN_MOD / step)) - 1)
		failure("%s: the stack byte reaches offsets 0x%x of every multiple of %u", pinned,
			seen, step);
	mg_decode(&t, input + 1, sizeof input - 1, &c);
	if (c.stack_offset != 0)
		failure("%s: a 31-byte input decodes to stack offset %u, not 0", pinned,
			c.stack_offset);
}

/* Every floating-point environment a variant's contract allows is reached
 * (kernel code: only the default), and an input too short for the byte
 * is the default. */
static void check_fpenvs(const char *family, const char *pinned)
{
	struct mg_target t;
	uint8_t input[MG_INPUT_MAX_BYTES] = {0};
	unsigned long seen = 0;
	unsigned count;
	struct mg_case c;
	char why[256];

	if (!mg_target_init(&t, family, pinned, why, sizeof why)) {
		failure("%s: %s", family, why);
		return;
	}
	count = mg_fpenv_count(t.pool[0]);
	for (unsigned b = 0; b < 256; b++) {
		input[MG_INPUT_MAX_BYTES - MG_INPUT_FPENV_BYTES] = (uint8_t)b;
		mg_decode(&t, input, sizeof input, &c);
		if (c.fpenv >= count || !mg_case_valid(&c, why, sizeof why))
			failure("%s: fpenv byte %u decodes to environment %u", pinned, b, c.fpenv);
		else
			seen |= 1ul << c.fpenv;
	}
	if (seen != (1ul << count) - 1)
		failure("%s: the fpenv byte reaches environments 0x%lx of %u", pinned, seen, count);
	input[MG_INPUT_MAX_BYTES - MG_INPUT_FPENV_BYTES] = 3;
	mg_decode(&t, input + MG_INPUT_MAX_BYTES - MG_INPUT_STACK_BYTES, MG_INPUT_STACK_BYTES, &c);
	if (c.fpenv != 0)
		failure("%s: a 32-byte input decodes to environment %u, not 0", pinned, c.fpenv);
}

/* A routine that may use SVE reaches every vector length the CPU has, the
 * start-up one among them; another always runs at the start-up one. */
static void check_vls(const char *family, const char *pinned)
{
	struct mg_target t;
	uint8_t input[MG_INPUT_MAX_BYTES] = {0};
	unsigned seen = 0, want;
	struct mg_case c;
	char why[256];

	if (!mg_target_init(&t, family, pinned, why, sizeof why)) {
		failure("%s: %s", family, why);
		return;
	}
	want = t.pool[0]->features & MG_FEAT_SVE ? mg_cpu_vls() << 1 | 1 : 1;
	for (unsigned b = 0; b < 256; b++) {
		input[MG_INPUT_MAX_BYTES - MG_INPUT_VL_BYTES] = (uint8_t)b;
		mg_decode(&t, input, sizeof input, &c);
		if (!mg_case_valid(&c, why, sizeof why))
			failure("%s: vl byte %u decodes to an invalid case: %s", pinned, b, why);
		seen |= c.vl ? 2u << __builtin_ctz(c.vl / MG_CPU_VL_MIN) : 1;
	}
	if (seen != want)
		failure("%s: the vl byte reaches lengths 0x%x, not 0x%x", pinned, seen, want);
}

int main(void)
{
	static const char *const families[] = {"memcpy", "memmove", "memset", "page"};
	const struct mg_table *tables[] = {&mg_main_table, &mg_selftest_table};
	struct mg_rng rng = {42};
	unsigned families_done = 0, variants_done = 0;

	for (size_t f = 0; f < 4; f++, families_done++)
		check_target(families[f], NULL, &rng);
#if defined(__x86_64__)
	check_target("usercopy", NULL, &rng); /* the user copies' variants are x86-64's */
	families_done++;
#endif
	/* Pinned to each variant, known-bad ones included: their contracts. */
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < tables[k]->count; i++, variants_done++) {
			const struct mg_variant *v = &tables[k]->variants[i];
			check_target(mg_family_of(v->op), v->name, &rng);
			check_stack_offsets(mg_family_of(v->op), v->name);
			check_fpenvs(mg_family_of(v->op), v->name);
			check_vls(mg_family_of(v->op), v->name);
		}
	printf("%u families x %u random inputs and %u variants x %u (and the empty one each) "
	       "decoded, %u failures\n",
	       families_done, INPUTS_PER_FAMILY, variants_done, INPUTS_PER_VARIANT, failures);
	return failures != 0;
}
