#include "decode.h"
#include "abi.h"
#include "cpu.h"
#include "rng.h"
#include "table.h"

#include <stdio.h>
#include <string.h>

const char mg_family_names[] = "memcpy, memmove, memset, page, usercopy";

static const struct {
	const char *name;
	unsigned ops; /* bit per enum mg_op */
} families[] = {
	{"memcpy", 1u << MG_MEMCPY | 1u << MG_MEMPCPY}, /* mempcpy takes the same cases */
	{"memmove", 1u << MG_MEMMOVE},
	{"memset", 1u << MG_MEMSET},
	{"page", 1u << MG_COPY_PAGE | 1u << MG_CLEAR_PAGE},
	{"usercopy", 1u << MG_COPY_FROM_USER | 1u << MG_COPY_TO_USER | 1u << MG_CLEAR_USER},
};

#define FAMILY_COUNT (sizeof families / sizeof families[0])

const char *mg_family_of(enum mg_op op)
{
	for (size_t i = 0; i < FAMILY_COUNT; i++)
		if (families[i].ops & (1u << op))
			return families[i].name;
	return "?";
}

static int family_index(const char *name)
{
	for (size_t i = 0; i < FAMILY_COUNT; i++)
		if (strcmp(families[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Fuzzing the whole table should find only new problems: the known-bad
 * variants and the ones this CPU cannot run stay out unless pinned. */
static void fill_pool(struct mg_target *t, unsigned ops)
{
	const struct mg_table *tab = &mg_main_table;
	char needs[128];

	for (size_t i = 0; i < tab->count && t->count < MG_FAMILY_MAX; i++) {
		const struct mg_variant *v = &tab->variants[i];
		if ((ops & (1u << v->op)) && v->expect == 0 &&
		    !mg_cpu_missing(v->features, needs, sizeof needs))
			t->pool[t->count++] = v;
	}
}

bool mg_target_init(struct mg_target *t, const char *family, const char *pinned, char *why,
		    size_t size)
{
	int f = family_index(family);

	memset(t, 0, sizeof *t);
	t->max_len = MG_DEFAULT_MAX_LEN;
	if (f < 0) {
		snprintf(why, size, "unknown target '%s' (valid: %s)", family, mg_family_names);
		return false;
	}
	t->family = families[f].name;
	if (!pinned || !*pinned) {
		fill_pool(t, families[f].ops);
		if (t->count == 0)
			snprintf(why, size, "no variant of %s can run on this CPU", family);
		return t->count > 0;
	}
	const struct mg_variant *v = mg_variant_find(pinned);
	if (!v) {
		snprintf(why, size, "unknown variant '%s' (see memgate list)", pinned);
		return false;
	}
	if (!(families[f].ops & (1u << v->op))) {
		snprintf(why, size, "variant %s is a %s, not of target %s", v->name,
			 mg_op_name(v->op), family);
		return false;
	}
	t->pool[0] = v;
	t->count = 1;
	t->pinned = true;
	return true;
}

/* Takes fields from the end of the input; missing bytes read as zero. */
struct reader {
	const uint8_t *data;
	size_t left;
};

static uint64_t take(struct reader *r, unsigned bytes)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < bytes; i++) {
		uint64_t b = 0;
		if (r->left) {
			b = r->data[r->left - 1];
			r->left--;
		}
		x |= b << (8 * i);
	}
	return x;
}

/* Where implementations switch strategy: vector widths, unrolled blocks,
 * the page, the usual rep-movsb and non-temporal thresholds. */
static const size_t boundaries[] = {
	15,   16,    17,    31,	   32,	   33,	   63,	     64,       65,   127,
	128,  129,   255,   256,   511,	   512,	   1024,     2048,     2112, 4096,
	8192, 16384, 32768, 65536, 131072, 262144, 1u << 20, 3u << 20,
};

#define BOUNDARY_COUNT (sizeof boundaries / sizeof boundaries[0])

/* Length classes (class byte mod 32): most weight on short lengths and
 * edges, where routines branch; the exact class is what mg_encode writes. */
static size_t decode_len(unsigned cls, uint32_t raw)
{
	size_t near = (raw >> 8) % 5; /* for "edge +- 2" */

	switch (cls % 32) {
	case 0: return raw;
	case 1: return 0;
	case 2 ... 9: return raw % 33;
	case 10 ... 15: return raw % 257;
	case 16 ... 19: return raw % 4097;
	case 20 ... 23: return ((size_t)1 << (raw % 17)) + (raw >> 8) % 3 - 1;
	case 24 ... 27: return boundaries[raw % BOUNDARY_COUNT] + near - 2;
	case 28 ... 29: return raw % 65537;
	case 30: return raw % ((1u << 20) + 1);
	default: return ((size_t)1 << (raw % 24)) + (raw >> 8) % 3 - 1;
	}
}

static size_t fold(size_t len, size_t max)
{
	return len > max ? len % (max + 1) : len;
}

/* FNV-1a over the whole input: any mutation, even of bytes the case
 * ignores, draws again. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/* Cost-aware lengths: a case of `len` bytes costs about 1 + len /
 * MG_COST_UNIT short cases, and past MG_COST_FAR one more per
 * MG_COST_FAR_UNIT bytes (decode.h), so a long length is kept with
 * probability 1/cost, by a hash of the whole input (replays agree; any
 * mutation draws again), and otherwise becomes a short one. Each length class then gets
 * about the same share of the time as of the draws, instead of the
 * multi-MiB ones taking nearly all of it: the sweep covers long lengths
 * systematically, and the fuzzer's time goes where its coverage grows.
 * mg_encode picks a spare field so that its length is kept. */
static bool len_kept(size_t len, const uint8_t *data, size_t size)
{
	uint64_t cost = 1 + len / MG_COST_UNIT;

	if (len > MG_COST_FAR)
		cost += (len - MG_COST_FAR) / MG_COST_FAR_UNIT;
	return cost == 1 || mg_below(mg_mix64(input_hash(data, size)), cost) == 0;
}

static size_t cost_aware(size_t len, const uint8_t *data, size_t size)
{
	return len_kept(len, data, size) ? len : len % 257;
}

static unsigned round_down(unsigned x, unsigned multiple)
{
	return x - x % multiple;
}

/* What the variant's contract promises it, and what the sandbox can hold. */
static void legalize(struct mg_case *c, size_t max_len)
{
	const struct mg_contract *k = &c->variant->contract;
	unsigned sa = k->src_align < MG_ALIGN_MOD ? k->src_align : MG_ALIGN_MOD;
	unsigned da = k->dst_align < MG_ALIGN_MOD ? k->dst_align : MG_ALIGN_MOD;

	c->len = fold(c->len, max_len);
	if (c->overlap && c->len > MG_MAX_LEN / 2)
		c->len = fold(c->len, MG_MAX_LEN / 2);
	if (k->fixed_len)
		c->len = k->fixed_len;
	c->len -= c->len % k->len_multiple;
	c->src_align = round_down(c->src_align, sa);
	c->dst_align = round_down(c->dst_align, da);
}

/* The spot byte's meaning, mod 8; 0-3 (half the inputs) are guard pages. */
static const enum mg_spot spot_codes[8] = {
	MG_SPOT_GUARD,	      MG_SPOT_GUARD,	    MG_SPOT_GUARD,	   MG_SPOT_GUARD,
	MG_SPOT_STRADDLE_SRC, MG_SPOT_STRADDLE_DST, MG_SPOT_STRADDLE_BOTH, MG_SPOT_PAGE_DIFF,
};

/* Makes the decoded case a spot case when it can take that spot. */
static void decode_spot(struct mg_case *c, unsigned code, uint32_t raw)
{
	enum mg_spot spot = spot_codes[code % 8];
	struct mg_case at_guard = *c;
	char why[160];

	if (spot == MG_SPOT_GUARD || c->len < 2)
		return;
	if (mg_spot_straddles_src(spot) && !mg_op_has_src(c->variant->op))
		spot = MG_SPOT_STRADDLE_DST;
	if (c->overlap && spot == MG_SPOT_STRADDLE_BOTH)
		spot = MG_SPOT_STRADDLE_SRC;
	mg_case_set_spot(c, spot,
			 spot == MG_SPOT_PAGE_DIFF ? raw % 4096u : 1 + raw % (c->len - 1));
	if (!mg_case_valid(c, why, sizeof why))
		*c = at_guard;
}

/* Interrupted, or in threads, where the case can be: elsewhere (aarch64
 * for the interrupts, a length or spot the situation does not take) the
 * same case, alone and uninterrupted. */
static void decode_situation(struct mg_case *c, unsigned situation)
{
	char why[160];

	c->interrupt = situation == MG_SITUATION_INTERRUPT;
	if (situation >= MG_SITUATION_THREADS + MG_THREADS_MIN &&
	    situation <= MG_SITUATION_THREADS + MG_THREADS_MAX)
		c->threads = situation - MG_SITUATION_THREADS;
	if ((c->interrupt || c->threads) && !mg_case_valid(c, why, sizeof why)) {
		c->interrupt = false;
		c->threads = 0;
	}
}

/* The user copies read the dist field as their fault: its low two bits 0,
 * no fault; else the user buffer faults from byte (dist >> 2) mod len on
 * (three inputs in four, as the faults are what these routines get wrong). */
static void decode_fault(struct mg_case *c, uint32_t raw)
{
	if (!mg_op_is_user(c->variant->op) || c->len == 0 || (raw & 3) == 0)
		return;
	mg_case_set_fault(c, (raw >> 2) % c->len);
}

/* The stack byte: which of the variant's stack offsets, counted in steps. */
static unsigned stack_offset_of(const struct mg_variant *v, unsigned byte)
{
	unsigned step = mg_stack_step(v);

	return byte % (MG_ALIGN_MOD / step) * step;
}

/* The vl byte: the start-up length, or a power of two the CPU has, for a
 * routine that may use SVE. */
static unsigned vl_of(const struct mg_variant *v, unsigned byte)
{
	unsigned k = byte % (MG_CPU_VL_BITS + 1);

	if (!k || !(v->features & MG_FEAT_SVE) || !(mg_cpu_vls() & 1u << (k - 1)))
		return 0;
	return MG_CPU_VL_MIN << (k - 1);
}

void mg_decode(const struct mg_target *t, const uint8_t *data, size_t size, struct mg_case *out)
{
	struct reader r = {data, size};
	unsigned selector = (unsigned)take(&r, 1);
	unsigned len_class = (unsigned)take(&r, 1);
	uint32_t len_raw = (uint32_t)take(&r, 4);
	unsigned src_byte = (unsigned)take(&r, 1);
	unsigned dst_byte = (unsigned)take(&r, 1);
	uint32_t dist_raw = (uint32_t)take(&r, 4);

	memset(out, 0, sizeof *out);
	out->variant = t->pool[selector % t->count];
	out->len = decode_len(len_class, len_raw);
	out->src_align = src_byte & (MG_ALIGN_MOD - 1);
	out->place = (src_byte & 0x40) ? MG_PLACE_BEFORE : MG_PLACE_AFTER;
	out->dst_align = dst_byte & (MG_ALIGN_MOD - 1);
	out->value = (int)(int32_t)take(&r, 4);
	out->seed = take(&r, 8);
	unsigned spot_code = (unsigned)take(&r, 1);
	uint32_t spot_raw = (uint32_t)take(&r, 4);
	out->len = cost_aware(fold(out->len, t->max_len), data, size);
	/* Only memset reads c: elsewhere the field is spare (mg_encode). */
	if (out->variant->op != MG_MEMSET)
		out->value = 0;
	if (out->variant->op == MG_MEMMOVE && (dst_byte & 0x40)) {
		out->overlap = true;
		legalize(out, t->max_len);
		/* Uniform over [-(len + 64), len + 64]: mostly overlapping, and
		 * the adjacent non-overlapping cases at the ends. */
		size_t reach = out->len + MG_ALIGN_MOD;
		mg_case_set_overlap(out, (long)(dist_raw % (2 * reach + 1)) - (long)reach);
	} else {
		out->src_above = mg_op_has_src(out->variant->op) && (src_byte & 0x80);
		legalize(out, t->max_len);
	}
	decode_fault(out, dist_raw);
	decode_spot(out, spot_code, spot_raw);
	decode_situation(out, (unsigned)take(&r, 2));
	out->stack_offset = stack_offset_of(out->variant, (unsigned)take(&r, 1));
	out->fpenv = (unsigned)take(&r, 1) % mg_fpenv_count(out->variant);
	out->fpenv_unkept = out->interrupt && !mg_abi_fpenv_steppable(out->fpenv);
	if (out->fpenv_unkept)
		out->fpenv = 0;
	out->vl = vl_of(out->variant, (unsigned)take(&r, 1));
	out->tag = (unsigned)take(&r, 1);
	if (out->tag && !mg_cpu_tbi())
		out->tag = 0;
}

static unsigned spot_code(enum mg_spot spot)
{
	for (unsigned i = 0; i < 8; i++)
		if (spot_codes[i] == spot)
			return i;
	return 0; /* the remote spots are not fuzz inputs */
}

static void put(uint8_t *end, unsigned *at, uint64_t x, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		end[-(int)++*at] = (uint8_t)(x >> (8 * i));
}

/* A field the case does not read (dist when not overlapping, else c for
 * a memmove) is set to the first value whose hash keeps the length. */
static void keep_len(const struct mg_case *c, uint8_t *out)
{
	/* From the end: selector, class, len (4), src, dst, then dist (4), c (4);
	 * a user copy reads dist as its fault, so c is its spare. */
	unsigned spare = c->overlap || mg_op_is_user(c->variant->op) ? 12 : 8;
	size_t size = mg_input_size(c);
	uint8_t *field = out + size - spare - 4;

	for (uint32_t k = 0; !len_kept(c->len, out, size); k++)
		for (unsigned i = 0; i < 4; i++)
			field[3 - i] = (uint8_t)(k >> (8 * i));
}

void mg_encode(const struct mg_target *t, const struct mg_case *c, uint8_t out[MG_INPUT_MAX_BYTES])
{
	uint8_t *end = out + mg_input_size(c);
	unsigned at = 0, selector = 0;
	uint64_t dist = 0;

	for (unsigned i = 0; i < t->count; i++)
		if (t->pool[i] == c->variant)
			selector = i;
	if (c->overlap)
		dist = (uint64_t)(c->dist + (long)(c->len + MG_ALIGN_MOD));
	if (c->user_fault)
		dist = (uint64_t)c->fault_at << 2 | 1;
	put(end, &at, selector, 1);
	put(end, &at, 0, 1); /* length class 0: exact */
	put(end, &at, c->len, 4);
	put(end, &at, c->src_align | (c->place == MG_PLACE_BEFORE) << 6 | (c->src_above != 0) << 7,
	    1);
	put(end, &at, c->dst_align | (unsigned)c->overlap << 6, 1);
	put(end, &at, dist, 4);
	put(end, &at, (uint32_t)c->value, 4);
	put(end, &at, c->seed, 8);
	put(end, &at, spot_code(c->spot), 1);
	put(end, &at, c->spot == MG_SPOT_PAGE_DIFF || c->spot == MG_SPOT_GUARD ? c->spot_arg
								     : c->spot_arg - 1,
	    4);
	if (c->interrupt)
		put(end, &at, MG_SITUATION_INTERRUPT, 2);
	else if (c->threads)
		put(end, &at, MG_SITUATION_THREADS + c->threads, 2);
	else if (c->stack_offset || c->fpenv || c->vl || c->tag)
		put(end, &at, 0, 2); /* none */
	if (c->stack_offset || c->fpenv || c->vl || c->tag)
		put(end, &at, c->stack_offset / mg_stack_step(c->variant), 1);
	if (c->fpenv || c->vl || c->tag)
		put(end, &at, c->fpenv, 1);
	if (c->vl || c->tag)
		put(end, &at, c->vl ? 1 + (unsigned)__builtin_ctz(c->vl / MG_CPU_VL_MIN) : 0, 1);
	if (c->tag)
		put(end, &at, c->tag, 1);
	keep_len(c, out); /* last: the hash covers every byte, the spot's too */
}

void mg_encode_selector(const struct mg_case *c, unsigned selector, uint8_t out[MG_INPUT_MAX_BYTES])
{
	out[mg_input_size(c) - 1] = (uint8_t)selector;
	keep_len(c, out);
}

unsigned mg_len_class(size_t len)
{
	unsigned bits = 0;

	if (len >= 65536)
		return MG_LEN_CLASSES - 1;
	if (len >= 4096)
		return MG_LEN_CLASSES - 2;
	if (len >= 1024)
		return MG_LEN_CLASSES - 3;
	while (len) {
		bits++;
		len >>= 1;
	}
	return bits; /* 0 for 0, 1 for 1, 2 for 2-3, ..., 10 for 512-1023 */
}
