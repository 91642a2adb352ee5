#include "case.h"
#include "abi.h"
#include "cpu.h"
#include "memcheck_mode.h"
#include "rng.h"
#include "situation.h"
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
const char *const mg_runner = MG_RUNNER;

const char *mg_replay_runner(void)
{
	const char *chosen = getenv("MEMGATE_RUNNER");

	return *mg_runner && chosen && *chosen ? chosen : mg_runner;
}

const char *mg_place_name(enum mg_place place)
{
	return place == MG_PLACE_AFTER ? "after" : "before";
}

static const char *const spot_names[MG_SPOT_COUNT] = {
	[MG_SPOT_GUARD] = "guard",
	[MG_SPOT_STRADDLE_SRC] = "straddle-src",
	[MG_SPOT_STRADDLE_DST] = "straddle-dst",
	[MG_SPOT_STRADDLE_BOTH] = "straddle-both",
	[MG_SPOT_PAGE_DIFF] = "page-diff",
	[MG_SPOT_SPLIT_2GIB] = "split-2gib",
	[MG_SPOT_SPAN_2GIB] = "span-2gib",
	[MG_SPOT_FAR] = "far",
	[MG_SPOT_SPAN_4GIB] = "span-4gib",
};

const char *mg_spot_name(enum mg_spot spot)
{
	return spot < MG_SPOT_COUNT ? spot_names[spot] : "?";
}

int mg_spot_parse(const char *name, enum mg_spot *out)
{
	for (int i = 0; i < MG_SPOT_COUNT; i++)
		if (strcmp(name, spot_names[i]) == 0) {
			*out = (enum mg_spot)i;
			return 1;
		}
	return 0;
}

/* The address mod 64 of a buffer that starts `split` bytes before a page
 * boundary. */
static unsigned straddle_align(size_t split)
{
	return (unsigned)(-split & (MG_ALIGN_MOD - 1));
}

/* span-2gib: the lower pointer is at 0x80000000 - below, src is it when
 * dist > 0. */
static unsigned span_src_align(long dist, size_t below)
{
	size_t above_lower = dist < 0 ? (size_t)-dist : 0;

	return (unsigned)((above_lower - below) & (MG_ALIGN_MOD - 1));
}

void mg_case_set_spot(struct mg_case *c, enum mg_spot spot, size_t arg)
{
	c->spot = spot;
	c->spot_arg = arg;
	if (mg_spot_straddles_src(spot))
		c->src_align = straddle_align(arg);
	if (c->overlap && (spot == MG_SPOT_SPAN_2GIB || spot == MG_SPOT_SPAN_4GIB))
		c->src_align = span_src_align(c->dist, arg);
	if (!c->overlap && spot == MG_SPOT_SPAN_4GIB)
		c->src_align = c->dst_align = straddle_align(arg);
	if (c->overlap && spot == MG_SPOT_STRADDLE_DST)
		c->src_align = (unsigned)(((long)straddle_align(arg) - c->dist % (long)MG_ALIGN_MOD +
					   (long)MG_ALIGN_MOD) %
					  MG_ALIGN_MOD);
	if (c->overlap)
		mg_case_set_overlap(c, c->dist);
	else if (mg_spot_straddles_dst(spot))
		c->dst_align = straddle_align(arg);
	else if (spot == MG_SPOT_PAGE_DIFF)
		c->dst_align = (unsigned)((c->src_align + arg) & (MG_ALIGN_MOD - 1));
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

/* The overlapping memmove past the sandbox: one mapping (huge.c). */
static bool one_buffer_valid(const struct mg_case *c, char *why, size_t size)
{
	if (c->variant->op != MG_MEMMOVE)
		return fail(why, size, "overlap is for memmove only");
	if (c->oracle)
		return fail(why, size, "--oracle takes separate buffers, not --overlap");
	if (c->len > MG_HUGE_ONE_MAX_LEN)
		return fail(why, size, "an overlapping move over %zu takes lengths up to %zu",
			    MG_MAX_LEN, MG_HUGE_ONE_MAX_LEN);
	if (c->dist == 0 || (size_t)labs(c->dist) > MG_SPOT_MAX_LEN)
		return fail(why, size,
			    "an overlapping move over %zu takes distances 1..%zu either way",
			    MG_MAX_LEN, MG_SPOT_MAX_LEN);
	return contract_allows(c, why, size);
}

static bool huge_case_valid(const struct mg_case *c, char *why, size_t size)
{
	enum mg_op op = c->variant->op;

	if (!mg_op_takes_huge(op))
		return fail(why, size, "lengths over %zu are for memcpy, mempcpy, memmove and memset",
			    MG_MAX_LEN);
	if (c->len > MG_HUGE_MAX_LEN)
		return fail(why, size, "length %zu is over the maximum %zu", c->len,
			    MG_HUGE_MAX_LEN);
	if (c->overlap)
		return one_buffer_valid(c, why, size);
	if (!MG_HUGE_LENGTHS)
		return fail(why, size,
			    "lengths over %zu in a 32-bit build are for an overlapping memmove "
			    "(--overlap)",
			    MG_MAX_LEN);
	if (c->oracle && c->len <= MG_ORACLE_MAPPED)
		return fail(why, size, "--oracle needs a length over %zu", MG_ORACLE_MAPPED);
	return contract_allows(c, why, size);
}

/* Beyond 64, alignment is met by placement, which a spot takes over. */
static bool spot_keeps_contract(const struct mg_case *c)
{
	const struct mg_contract *k = &c->variant->contract;
	bool span4 = c->spot == MG_SPOT_SPAN_4GIB;
	bool src_moved = mg_spot_straddles_src(c->spot) || c->overlap || span4;
	bool dst_moved = mg_spot_straddles_dst(c->spot) || c->spot == MG_SPOT_PAGE_DIFF || span4;

	return (!src_moved || k->src_align <= MG_ALIGN_MOD) &&
	       (!dst_moved || k->dst_align <= MG_ALIGN_MOD);
}

static bool straddle_valid(const struct mg_case *c, char *why, size_t size)
{
	bool has_src = mg_op_has_src(c->variant->op);

	if (c->spot_arg < 1 || c->spot_arg >= c->len)
		return fail(why, size, "a straddle split of %zu is not within the length %zu",
			    c->spot_arg, c->len);
	if (mg_spot_straddles_src(c->spot) && !has_src)
		return fail(why, size, "%s has no source to straddle", mg_op_name(c->variant->op));
	if (c->overlap && c->spot == MG_SPOT_STRADDLE_BOTH)
		return fail(why, size, "an overlapping move straddles at src or at dst, not both");
	if (c->src_align != straddle_align(c->spot_arg) && mg_spot_straddles_src(c->spot))
		return fail(why, size, "src%%64 %u does not start %zu bytes before a page",
			    c->src_align, c->spot_arg);
	if (c->dst_align != straddle_align(c->spot_arg) &&
	    mg_spot_straddles_dst(c->spot))
		return fail(why, size, "dst%%64 %u does not start %zu bytes before a page",
			    c->dst_align, c->spot_arg);
	return true;
}

static bool separate_spot_valid(const struct mg_case *c, char *why, size_t size)
{
	if (!mg_op_has_src(c->variant->op) || c->overlap)
		return fail(why, size, "spot %s is for separate source and destination buffers",
			    mg_spot_name(c->spot));
	if (c->spot == MG_SPOT_PAGE_DIFF && c->spot_arg >= 4096)
		return fail(why, size, "page-diff %zu is not below 4096", c->spot_arg);
	if (c->spot == MG_SPOT_PAGE_DIFF &&
	    c->dst_align != ((c->src_align + c->spot_arg) & (MG_ALIGN_MOD - 1)))
		return fail(why, size, "dst%%64 %u does not follow from page-diff %zu",
			    c->dst_align, c->spot_arg);
	if (c->spot == MG_SPOT_SPLIT_2GIB && UINTPTR_MAX > 0xffffffffu)
		return fail(why, size, "spot split-2gib is for 32-bit address spaces");
	if (c->spot == MG_SPOT_FAR && UINTPTR_MAX <= 0xffffffffu)
		return fail(why, size, "spot far needs a 64-bit address space");
	return true;
}

static bool span_valid(const struct mg_case *c, char *why, size_t size)
{
	if (UINTPTR_MAX > 0xffffffffu)
		return fail(why, size, "spot span-2gib is for 32-bit address spaces");
	if (!c->overlap || c->dist == 0)
		return fail(why, size, "spot span-2gib is for memmove --overlap=D with D != 0");
	if (c->spot_arg < 1 || c->spot_arg > (size_t)labs(c->dist))
		return fail(why, size,
			    "span-2gib: the lower pointer must be 1..%ld bytes below 2 GiB, not %zu",
			    labs(c->dist), c->spot_arg);
	if (c->src_align != span_src_align(c->dist, c->spot_arg))
		return fail(why, size, "src%%64 %u does not follow from span-2gib %zu",
			    c->src_align, c->spot_arg);
	return true;
}

/* span-4gib: at least one byte below the multiple of 4 GiB; a separate
 * buffer may end at it, memmove's span (len + |dist|) too. */
static bool span4_valid(const struct mg_case *c, char *why, size_t size)
{
	size_t span = c->len + (c->overlap ? (size_t)labs(c->dist) : 0);

	if (UINTPTR_MAX <= 0xffffffffu)
		return fail(why, size, "spot span-4gib needs a 64-bit address space");
	if (c->overlap && c->dist == 0)
		return fail(why, size, "spot span-4gib takes --overlap=D with D != 0");
	if (c->spot_arg < 1 || c->spot_arg > span)
		return fail(why, size, "span-4gib: 1..%zu bytes below the 4 GiB multiple, not %zu",
			    span, c->spot_arg);
	if (c->overlap && c->src_align != span_src_align(c->dist, c->spot_arg))
		return fail(why, size, "src%%64 %u does not follow from span-4gib %zu",
			    c->src_align, c->spot_arg);
	if (!c->overlap &&
	    (c->dst_align != straddle_align(c->spot_arg) ||
	     (mg_op_has_src(c->variant->op) && c->src_align != straddle_align(c->spot_arg))))
		return fail(why, size, "the buffers do not start %zu bytes below a 4 GiB multiple",
			    c->spot_arg);
	return true;
}

static bool spot_valid(const struct mg_case *c, char *why, size_t size)
{
	if (c->spot >= MG_SPOT_COUNT)
		return fail(why, size, "unknown spot %u", (unsigned)c->spot);
	if (c->spot == MG_SPOT_GUARD)
		return c->spot_arg == 0 || fail(why, size, "spot guard takes no number");
	if (mg_case_is_huge(c) || c->len == 0)
		return fail(why, size, "spot %s is for lengths 1..%zu", mg_spot_name(c->spot),
			    MG_MAX_LEN);
	if (!spot_keeps_contract(c))
		return fail(why, size, "spot %s breaks the variant's page alignment",
			    mg_spot_name(c->spot));
	if (mg_spot_is_remote(c->spot) && c->len > MG_SPOT_MAX_LEN)
		return fail(why, size, "spot %s takes lengths up to %zu", mg_spot_name(c->spot),
			    MG_SPOT_MAX_LEN);
	switch (c->spot) {
	case MG_SPOT_STRADDLE_SRC:
	case MG_SPOT_STRADDLE_DST:
	case MG_SPOT_STRADDLE_BOTH: return straddle_valid(c, why, size);
	case MG_SPOT_SPAN_2GIB: return span_valid(c, why, size);
	case MG_SPOT_SPAN_4GIB: return span4_valid(c, why, size);
	default: return separate_spot_valid(c, why, size);
	}
}

unsigned mg_stack_step(const struct mg_variant *v)
{
	return v->contract.kernel ? MG_ABI_STACK_STEP_KERNEL : MG_ABI_STACK_STEP;
}

unsigned mg_stack_offset_nth(const struct mg_variant *v, uint64_t k)
{
	unsigned step = mg_stack_step(v), count = MG_ALIGN_MOD / step; /* a power of two */

	return (unsigned)((k ^ k >> 6 ^ k >> 12) & (count - 1)) * step;
}

unsigned mg_fpenv_count(const struct mg_variant *v)
{
	return v->contract.kernel || mg_memcheck_running() ? 1 : MG_ABI_FPENV_COUNT;
}

unsigned mg_fpenv_nth(const struct mg_variant *v, uint64_t k)
{
	unsigned others = mg_fpenv_count(v) - 1;
	uint64_t h = (k >> 3) ^ (k >> 9);

	/* One case in 8: loading and restoring an environment costs about a
	 * third of a short case (ldmxcsr and fldcw twice). */
	return others && ((k ^ k >> 5) & 7) == 1 ? 1 + (unsigned)(h % others) : 0;
}

static bool fpenv_valid(const struct mg_case *c, char *why, size_t size)
{
	if (c->fpenv < mg_fpenv_count(c->variant))
		return true;
	if (c->variant->contract.kernel)
		return fail(why, size,
			    "--fpenv is default for kernel code: kernel_fpu_begin loads the "
			    "default floating-point environment");
	if (mg_memcheck_running())
		return fail(why, size,
			    "--fpenv is default under valgrind, which does not emulate the others "
			    "(it ignores FTZ/DAZ, x87 precision control and exception masks)");
	return fail(why, size, "--fpenv %u is not below %u", c->fpenv, MG_ABI_FPENV_COUNT);
}

unsigned mg_vl_nth(const struct mg_case *c, uint64_t k)
{
	unsigned mask = mg_cpu_vls(), count = (unsigned)__builtin_popcount(mask), pick;

	if (!(c->variant->features & MG_FEAT_SVE) || !count || c->len > MG_VL_MAX_LEN)
		return 0;
	uint64_t h = mg_mix64(k ^ 0x766c656eull); /* "vlen" */
	if (h & 3)
		return 0; /* three cases in four at the start-up length */
	pick = (unsigned)(h >> 2) % count;
	for (unsigned bit = 0; bit < MG_CPU_VL_BITS; bit++)
		if (mask & 1u << bit && pick-- == 0)
			return MG_CPU_VL_MIN << bit;
	return 0;
}

unsigned mg_tag_nth(uint64_t k)
{
	uint64_t h = mg_mix64(k ^ 0x74616773ull); /* "tags" */

	return (h & 1) && mg_cpu_tbi() ? (unsigned)(h >> 8 & 0xff) : 0;
}

void mg_case_vary_entry(struct mg_case *c, uint64_t k)
{
	c->stack_offset = mg_stack_offset_nth(c->variant, k);
	c->fpenv = mg_fpenv_nth(c->variant, k);
	c->fpenv_unkept = c->interrupt && !mg_abi_fpenv_steppable(c->fpenv);
	if (c->fpenv_unkept)
		c->fpenv = 0;
	c->vl = mg_vl_nth(c, k);
	c->tag = mg_tag_nth(k);
}

static bool tag_valid(const struct mg_case *c, char *why, size_t size)
{
	if (!c->tag)
		return true;
	if (c->tag > 0xff)
		return fail(why, size, "--tag is a pointer's top byte, 1 to 255, not %u", c->tag);
	if (!mg_cpu_tbi())
		return fail(why, size,
			    "--tag=%u: this system does not ignore the top byte of addresses (TBI)",
			    c->tag);
	return true;
}

static bool vl_valid(const struct mg_case *c, char *why, size_t size)
{
	char lengths[64] = "";
	unsigned mask = mg_cpu_vls();
	size_t used = 0;

	if (!c->vl)
		return true;
	for (unsigned bit = 0; bit < MG_CPU_VL_BITS; bit++) {
		if (c->vl == MG_CPU_VL_MIN << bit && mask & 1u << bit)
			return true;
		if (mask & 1u << bit && used < sizeof lengths)
			used += (size_t)snprintf(lengths + used, sizeof lengths - used, "%s%u",
						 used ? ", " : "", MG_CPU_VL_MIN << bit);
	}
	if (!mask)
		return fail(why, size, "--vl=%u: this CPU has no vector length to choose (no SVE)",
			    c->vl);
	return fail(why, size, "--vl=%u: this CPU's vector lengths are %s bytes", c->vl, lengths);
}

static bool stack_offset_valid(const struct mg_case *c, char *why, size_t size)
{
	unsigned step = mg_stack_step(c->variant);

	if (c->stack_offset < MG_ALIGN_MOD && c->stack_offset % step == 0)
		return true;
	return fail(why, size,
		    "--stack-offset is " MG_ABI_STACK_AT_ENTRY " at entry: a multiple of %u below %u "
		    "under the %s contract, not %u",
		    step, MG_ALIGN_MOD, c->variant->contract.kernel ? "kernel" : "user",
		    c->stack_offset);
}

/* The user copies run at the guard pages, alone, with the user buffer
 * faulting from fault_at on or not at all (docs/usercopy.md). */
static bool user_case_valid(const struct mg_case *c, char *why, size_t size)
{
	enum mg_op op = c->variant->op;

	if (!mg_op_is_user(op))
		return !c->user_fault || fail(why, size, "--fault-at is for the user copies");
	if (mg_situation_of(c) || c->oracle || c->spot != MG_SPOT_GUARD)
		return fail(why, size, "%s runs at the guard pages, alone (no --interrupt, "
			    "--threads, --oracle or --spot: not emulated for user copies)",
			    mg_op_name(op));
	if (!c->user_fault)
		return true;
	if (c->fault_at >= c->len)
		return fail(why, size, "--fault-at=%zu: the user buffer's bytes are 0..%zu", c->fault_at,
			    c->len ? c->len - 1 : 0);
	if ((mg_user_is_src(op) ? c->src_align : c->dst_align) != mg_fault_align(c->fault_at))
		return fail(why, size,
			    "%s%%64 %u does not follow from --fault-at=%zu (byte %zu starts a page: "
			    "%u)",
			    mg_user_is_src(op) ? "src" : "dst",
			    mg_user_is_src(op) ? c->src_align : c->dst_align, c->fault_at,
			    c->fault_at, mg_fault_align(c->fault_at));
	return true;
}

bool mg_case_valid(const struct mg_case *c, char *why, size_t size)
{
	size_t span = c->len + (c->overlap ? (size_t)labs(c->dist) : 0);

	if (!stack_offset_valid(c, why, size) || !fpenv_valid(c, why, size) ||
	    !vl_valid(c, why, size) || !tag_valid(c, why, size))
		return false;
	if (!user_case_valid(c, why, size) || !mg_situation_valid(c, why, size))
		return false;

	if (c->src_align >= MG_ALIGN_MOD || c->dst_align >= MG_ALIGN_MOD)
		return fail(why, size, "alignment %u is not below %u",
			    c->src_align > c->dst_align ? c->src_align : c->dst_align,
			    MG_ALIGN_MOD);
	if (mg_case_is_huge(c))
		return c->spot == MG_SPOT_GUARD ? huge_case_valid(c, why, size)
						: spot_valid(c, why, size);
	if (c->overlap && c->variant->op != MG_MEMMOVE)
		return fail(why, size, "overlap is for memmove only");
	if (c->overlap && span + MG_ALIGN_MOD > MG_MAX_LEN + MG_ARENA_SLACK)
		return fail(why, size, "length plus overlap distance %zu is over %zu", span,
			    MG_MAX_LEN + MG_ARENA_SLACK - MG_ALIGN_MOD);
	return spot_valid(c, why, size) && contract_allows(c, why, size);
}

bool mg_case_equal(const struct mg_case *a, const struct mg_case *b)
{
	return a->variant == b->variant && a->len == b->len && a->src_align == b->src_align &&
	       a->dst_align == b->dst_align && a->overlap == b->overlap &&
	       (!a->overlap || a->dist == b->dist) && a->value == b->value && a->seed == b->seed &&
	       a->place == b->place && a->oracle == b->oracle && a->spot == b->spot &&
	       a->spot_arg == b->spot_arg && a->interrupt == b->interrupt &&
	       a->threads == b->threads && a->stack_offset == b->stack_offset &&
	       a->fpenv == b->fpenv && a->vl == b->vl && a->tag == b->tag &&
	       (a->overlap || a->src_above == b->src_above) && a->user_fault == b->user_fault &&
	       (!a->user_fault || a->fault_at == b->fault_at);
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

static int describe_spot(const struct mg_case *c, char *out, size_t size)
{
	const char *side = c->place == MG_PLACE_AFTER ? "after" : "before";
	size_t k = c->spot_arg;

	switch (c->spot) {
	case MG_SPOT_STRADDLE_SRC:
	case MG_SPOT_STRADDLE_DST:
	case MG_SPOT_STRADDLE_BOTH:
		return snprintf(out, size,
				"%s across two mapped pages, %zu byte%s before the page boundary "
				"(near the guard page %s)",
				c->spot == MG_SPOT_STRADDLE_BOTH  ? "src and dst each"
				: c->spot == MG_SPOT_STRADDLE_SRC ? "src"
								  : "dst",
				k, k == 1 ? "" : "s", side);
	case MG_SPOT_PAGE_DIFF:
		return snprintf(out, size, "(dst - src) mod 4096 = %zu (near the guard page %s)", k,
				side);
	case MG_SPOT_SPLIT_2GIB:
		return snprintf(out, size, "%s below 0x80000000, %s above it",
				c->src_above ? "dst" : "src", c->src_above ? "src" : "dst");
	case MG_SPOT_SPAN_2GIB:
		return snprintf(out, size, "the buffer crosses 0x80000000, %s at 0x80000000 - %zu",
				c->dist > 0 ? "src" : "dst", k);
	case MG_SPOT_SPAN_4GIB:
		if (c->overlap)
			return snprintf(
				out, size,
				"the buffer crosses a multiple of 4 GiB above 4 GiB, %s %zu "
				"bytes below it",
				c->dist > 0 ? "src" : "dst", k);
		return snprintf(
			out, size, "%s a multiple of 4 GiB above 4 GiB, %zu byte%s below it%s",
			mg_op_has_src(c->variant->op) ? "src and dst each cross" : "dst crosses", k,
			k == 1 ? "" : "s",
			!mg_op_has_src(c->variant->op) ? ""
			: c->src_above		       ? ", src 4 GiB above dst"
						       : ", src 4 GiB below dst");
	default:
		return snprintf(out, size, "src and dst more than 4 GiB apart, src %s dst",
				c->src_above ? "above" : "below");
	}
}

/* A user copy with a fault: the user buffer's pages from byte k on are
 * PROT_NONE; the kernel buffer sits near its guard page. */
static int describe_user_fault(const struct mg_case *c, char *out, size_t size)
{
	int user_src = mg_user_is_src(c->variant->op);
	int used = snprintf(out, size, "user buffer %s: byte %zu starts a PROT_NONE page",
			    user_src ? "src" : "dst", c->fault_at);
	unsigned kernel_align = user_src ? c->dst_align : c->src_align;

	if (c->variant->op == MG_CLEAR_USER)
		return used;
	used += snprintf(out + used, size - (size_t)used, "; kernel buffer near the guard page %s: ",
			 mg_place_name(c->place));
	return used + describe_gap(out + used, size - (size_t)used, user_src ? "dst" : "src",
				   gap_to_guard(c, c->len, kernel_align));
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
	if (c->spot != MG_SPOT_GUARD)
		return describe_spot(c, out, size);
	if (c->user_fault)
		return describe_user_fault(c, out, size);
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
	int used = snprintf(out, size, "%s (%s, %s%s%s%s): len %zu, ", v->name, mg_op_name(v->op),
			    v->arch, v->convention ? ", convention '" : "",
			    v->convention ? v->convention : "", v->convention ? "'" : "", c->len);

	used += describe_buffers(c, out + used, size - (size_t)used);
	if (v->op == MG_MEMSET)
		used += snprintf(out + used, size - (size_t)used, ", c = %d (0x%x)", c->value,
				 (unsigned)c->value);
	used += snprintf(out + used, size - (size_t)used, "; ");
	used += describe_placement(c, out + used, size - (size_t)used);
	used += snprintf(out + used, size - (size_t)used, "; fill seed 0x%" PRIx64, c->seed);
	if (mg_fill_name(mg_case_fill(c)))
		used += snprintf(out + used, size - (size_t)used, " (%s)", mg_fill_name(mg_case_fill(c)));
	if (c->interrupt)
		used += snprintf(out + used, size - (size_t)used,
				 "; interrupted at every instruction");
	if (c->threads)
		used += snprintf(out + used, size - (size_t)used, "; in %u threads at once",
				 c->threads);
	if (c->fpenv && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used,
				 "; floating-point environment %s at entry",
				 mg_abi_fpenv_name(c->fpenv));
	if (c->stack_offset && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used,
				 "; " MG_ABI_STACK_AT_ENTRY " = %u at entry", c->stack_offset);
	if (c->vl && used >= 0 && (size_t)used < size)
		used += snprintf(out + used, size - (size_t)used, "; vector length %u bytes",
				 c->vl);
	if (c->tag && used >= 0 && (size_t)used < size)
		snprintf(out + used, size - (size_t)used, "; pointers tagged 0x%02x (dst), 0x%02x (src)",
			 c->tag, mg_src_tag(c));
}

const char *mg_fill_name(enum mg_fill fill)
{
	static const char *const names[] = {NULL, "all zero", "all 0xff", "signalling NaNs",
					    "dst already equal"};

	return fill < sizeof names / sizeof names[0] ? names[fill] : NULL;
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

/* Whether the case's variant is called as the table declares it (memgate
 * run --convention calls it otherwise). */
static int same_convention(const struct mg_variant *v, const struct mg_variant *row)
{
	const char *mine = v->convention, *theirs = row ? row->convention : NULL;

	return mine == theirs || (mine && theirs && strcmp(mine, theirs) == 0);
}

void mg_case_replay_argv(const struct mg_case *c, struct mg_argv *a)
{
	mg_argv_add_words(a, mg_replay_runner());
	/* Under qemu, the CPU model is part of the case: a 64-byte DC ZVA
	 * block is cortex-a57's, not the default's. */
	if (*mg_runner && mg_cpu_model()) {
		add_word(a, "-cpu");
		add_word(a, "%s", mg_cpu_model());
	}
	add_word(a, "%s", mg_program);
	add_word(a, "run");
	add_word(a, "--variant=%s", c->variant->name);
	if (!same_convention(c->variant, mg_variant_find(c->variant->name)))
		add_word(a, "--convention=%s", c->variant->convention ? c->variant->convention : "c");
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
	if (c->spot != MG_SPOT_GUARD)
		add_word(a, "--spot=%s:%zu", mg_spot_name(c->spot), c->spot_arg);
	add_word(a, "--seed=0x%" PRIx64, c->seed);
	if (c->interrupt)
		add_word(a, "--interrupt=step");
	if (c->threads)
		add_word(a, "--threads=%u", c->threads);
	if (c->fpenv)
		add_word(a, "--fpenv=%s", mg_abi_fpenv_name(c->fpenv));
	if (c->stack_offset)
		add_word(a, "--stack-offset=%u", c->stack_offset);
	if (c->vl)
		add_word(a, "--vl=%u", c->vl);
	if (c->tag)
		add_word(a, "--tag=%u", c->tag);
	if (c->user_fault)
		add_word(a, "--fault-at=%zu", c->fault_at);
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
