#include "case.h"
#include "cpu.h"
#include "table.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This build's memgate, and what runs it when it is not native (qemu-user):
 * the Makefile bakes both in, so replay lines work as printed. */
#ifndef MG_PROGRAM
#define MG_PROGRAM "build/memgate"
#endif
#ifndef MG_RUNNER
#define MG_RUNNER ""
#endif

const char *mg_program = MG_PROGRAM;

const char *mg_place_name(enum mg_place place)
{
	return place == MG_PLACE_AFTER ? "after" : "before";
}

__attribute__((format(printf, 3, 4))) static bool fail(char *why, size_t size, const char *format,
						       ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(why, size, format, args);
	va_end(args);
	return false;
}

static bool contract_allows(const struct mg_case *c, char *why, size_t size)
{
	const struct mg_contract *k = &c->variant->contract;

	if (k->fixed_len && c->len != k->fixed_len)
		return fail(why, size, "length %zu: the variant only takes %zu", c->len,
			    k->fixed_len);
	if (c->len % k->len_multiple)
		return fail(why, size, "length %zu is not a multiple of %u", c->len,
			    k->len_multiple);
	/* Alignments beyond 64 (pages) are met by placement, not by the case. */
	unsigned sa = k->src_align < MG_ALIGN_MOD ? k->src_align : MG_ALIGN_MOD;
	unsigned da = k->dst_align < MG_ALIGN_MOD ? k->dst_align : MG_ALIGN_MOD;
	if (mg_op_has_src(c->variant->op) && c->src_align % sa)
		return fail(why, size, "source alignment %u breaks the required %u", c->src_align,
			    k->src_align);
	if (c->dst_align % da)
		return fail(why, size, "destination alignment %u breaks the required %u",
			    c->dst_align, k->dst_align);
	return true;
}

static bool huge_case_valid(const struct mg_case *c, char *why, size_t size)
{
	enum mg_op op = c->variant->op;

	if (op != MG_MEMCPY && op != MG_MEMMOVE && op != MG_MEMSET && op != MG_MEMPCPY)
		return fail(why, size, "lengths over %zu are for memcpy, mempcpy, memmove and memset",
			    MG_MAX_LEN);
	if (c->len > MG_HUGE_MAX_LEN)
		return fail(why, size, "length %zu is over the maximum %zu", c->len,
			    MG_HUGE_MAX_LEN);
	if (c->overlap)
		return fail(why, size, "lengths over %zu take separate buffers, not --overlap",
			    MG_MAX_LEN);
	if (c->oracle && c->len <= MG_ORACLE_MAPPED)
		return fail(why, size, "--oracle needs a length over %zu", MG_ORACLE_MAPPED);
	return contract_allows(c, why, size);
}

bool mg_case_valid(const struct mg_case *c, char *why, size_t size)
{
	size_t span = c->len + (c->overlap ? (size_t)labs(c->dist) : 0);

	if (c->src_align >= MG_ALIGN_MOD || c->dst_align >= MG_ALIGN_MOD)
		return fail(why, size, "alignment %u is not below %u",
			    c->src_align > c->dst_align ? c->src_align : c->dst_align,
			    MG_ALIGN_MOD);
	if (mg_case_is_huge(c))
		return huge_case_valid(c, why, size);
	if (c->overlap && c->variant->op != MG_MEMMOVE)
		return fail(why, size, "overlap is for memmove only");
	if (c->overlap && span + MG_ALIGN_MOD > MG_MAX_LEN + MG_ARENA_SLACK)
		return fail(why, size, "length plus overlap distance %zu is over %zu", span,
			    MG_MAX_LEN + MG_ARENA_SLACK - MG_ALIGN_MOD);
	return contract_allows(c, why, size);
}

bool mg_case_equal(const struct mg_case *a, const struct mg_case *b)
{
	return a->variant == b->variant && a->len == b->len && a->src_align == b->src_align &&
	       a->dst_align == b->dst_align && a->overlap == b->overlap &&
	       (!a->overlap || a->dist == b->dist) && a->value == b->value && a->seed == b->seed &&
	       a->place == b->place && a->oracle == b->oracle &&
	       (a->overlap || a->src_above == b->src_above);
}

/* Bytes between a buffer and the guard page it is pushed against. */
static unsigned gap_to_guard(const struct mg_case *c, size_t len, unsigned align)
{
	if (c->place == MG_PLACE_BEFORE)
		return align;
	return (unsigned)((0 - len - align) & (MG_ALIGN_MOD - 1));
}

static int describe_gap(char *out, size_t size, const char *name, unsigned gap)
{
	if (gap == 0)
		return snprintf(out, size, "%s flush", name);
	return snprintf(out, size, "%s %u byte%s off", name, gap, gap == 1 ? "" : "s");
}

static int describe_buffers(const struct mg_case *c, char *out, size_t size)
{
	const struct mg_variant *v = c->variant;

	if (c->overlap)
		return snprintf(out, size, "one buffer: src%%64 = %u, dst = src %s %ld%s",
				c->src_align, c->dist < 0 ? "-" : "+", labs(c->dist),
				c->dist ? "" : " (d == s)");
	if (mg_op_has_src(v->op))
		return snprintf(out, size, "src%%64 = %u, dst%%64 = %u, src %s dst", c->src_align,
				c->dst_align, c->src_above ? "above" : "below");
	return snprintf(out, size, "dst%%64 = %u", c->dst_align);
}

static int describe_placement(const struct mg_case *c, char *out, size_t size)
{
	const char *side = c->place == MG_PLACE_AFTER ? "after" : "before";
	int used;

	if (c->len == 0)
		return snprintf(out, size, "pointers into PROT_NONE guard pages");
	if (c->oracle)
		return snprintf(out, size,
				"oracle: only the first %zu bytes of each buffer mapped, the rest "
				"PROT_NONE",
				MG_ORACLE_MAPPED);
	used = snprintf(out, size, "guard page %s: ", side);
	if (c->overlap) {
		size_t span = c->len + (size_t)labs(c->dist);
		unsigned anchor = c->dist < 0 ? c->dst_align : c->src_align;
		if (c->place == MG_PLACE_AFTER)
			anchor = c->dist < 0 ? c->src_align : c->dst_align;
		return used +
		       describe_gap(
			       out + used, size - (size_t)used, "region",
			       gap_to_guard(c, c->place == MG_PLACE_AFTER ? c->len : span, anchor));
	}
	if (mg_op_has_src(c->variant->op)) {
		used += describe_gap(out + used, size - (size_t)used, "src",
				     gap_to_guard(c, c->len, c->src_align));
		used += snprintf(out + used, size - (size_t)used, ", ");
	}
	return used + describe_gap(out + used, size - (size_t)used, "dst",
				   gap_to_guard(c, c->len, c->dst_align));
}

void mg_case_describe(const struct mg_case *c, char *out, size_t size)
{
	const struct mg_variant *v = c->variant;
	int used = snprintf(out, size, "%s (%s, %s): len %zu, ", v->name, mg_op_name(v->op),
			    v->arch, c->len);

	used += describe_buffers(c, out + used, size - (size_t)used);
	if (v->op == MG_MEMSET)
		used += snprintf(out + used, size - (size_t)used, ", c = %d (0x%x)", c->value,
				 (unsigned)c->value);
	used += snprintf(out + used, size - (size_t)used, "; ");
	used += describe_placement(c, out + used, size - (size_t)used);
	snprintf(out + used, size - (size_t)used, "; fill seed 0x%" PRIx64, c->seed);
}

__attribute__((format(printf, 2, 3))) static void add_word(struct mg_argv *a, const char *format,
							   ...)
{
	size_t room = sizeof a->text - a->used;
	va_list args;
	int n;

	if (a->argc >= MG_ARGV_MAX)
		return;
	va_start(args, format);
	n = vsnprintf(a->text + a->used, room, format, args);
	va_end(args);
	if (n < 0 || (size_t)n >= room)
		return;
	a->argv[a->argc++] = a->text + a->used;
	a->used += (size_t)n + 1;
}

void mg_argv_add_words(struct mg_argv *a, const char *words)
{
	while (*words) {
		size_t n = strcspn(words, " ");
		if (n)
			add_word(a, "%.*s", (int)n, words);
		words += n + (words[n] == ' ');
	}
}

void mg_case_replay_argv(const struct mg_case *c, struct mg_argv *a)
{
	mg_argv_add_words(a, MG_RUNNER);
	/* Under qemu, the CPU model is part of the case: a 64-byte DC ZVA
	 * block is cortex-a57's, not the default's. */
	if (*MG_RUNNER && mg_cpu_model()) {
		add_word(a, "-cpu");
		add_word(a, "%s", mg_cpu_model());
	}
	add_word(a, "%s", mg_program);
	add_word(a, "run");
	add_word(a, "--variant=%s", c->variant->name);
	add_word(a, "--len=%zu", c->len);
	if (mg_op_has_src(c->variant->op))
		add_word(a, "--src-align=%u", c->src_align);
	if (c->overlap)
		add_word(a, "--overlap=%ld", c->dist);
	else
		add_word(a, "--dst-align=%u", c->dst_align);
	if (c->src_above && !c->overlap && mg_op_has_src(c->variant->op))
		add_word(a, "--src-above");
	if (c->oracle)
		add_word(a, "--oracle");
	if (c->variant->op == MG_MEMSET)
		add_word(a, "--value=%d", c->value);
	add_word(a, "--place=%s", mg_place_name(c->place));
	add_word(a, "--seed=0x%" PRIx64, c->seed);
}

void mg_argv_join(const struct mg_argv *a, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < a->argc && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "", a->argv[i]);
}

void mg_case_replay(const struct mg_case *c, char *out, size_t size)
{
	struct mg_argv a = {.argc = 0};

	mg_case_replay_argv(c, &a);
	mg_argv_join(&a, out, size);
}
