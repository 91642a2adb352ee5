/* One test case: everything needed to replay a single call exactly. */
#ifndef MG_CASE_H
#define MG_CASE_H

#include "rng.h"
#include "variant.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Alignments are addresses modulo this. */
#define MG_ALIGN_MOD 64u
/* The longest length the sandbox takes (the sweep goes to 8 MiB and a bit). */
#define MG_MAX_LEN ((size_t)16 << 20)
/* Room in an arena beyond the length, for alignment and overlap distance. */
#define MG_ARENA_SLACK ((size_t)64 << 10)
/* The longest length at the spots with their own mappings (placements.h). */
#define MG_SPOT_MAX_LEN ((size_t)16 << 10)
/* Longer lengths go to the 4 GiB+ check (huge.h), which only a 64-bit size_t
 * can hold: with a 32-bit one MG_HUGE_4GIB is 0 and no length is too long. */
#define MG_HUGE_LENGTHS (SIZE_MAX > 0xffffffffu)
#define MG_HUGE_4GIB	((size_t)((uint64_t)1 << 32))
#define MG_HUGE_MAX_LEN (MG_HUGE_LENGTHS ? MG_HUGE_4GIB + ((size_t)1 << 20) : SIZE_MAX)
/* The overlapping memmove past the sandbox (huge.c, "one buffer"): lengths
 * up to 2 GiB + 1 MiB, distances up to MG_SPOT_MAX_LEN, in one mapping a
 * 32-bit address space can hold. */
#define MG_HUGE_ONE_MAX_LEN  (((size_t)1 << 31) + ((size_t)1 << 20))
#define MG_HUGE_ONE_MAX_SPAN (MG_HUGE_ONE_MAX_LEN + MG_SPOT_MAX_LEN)
/* How much of each buffer an oracle case maps: the rest faults. */
#define MG_ORACLE_MAPPED ((size_t)64 << 10)

/* How many threads a case may run in at once (thread.h), the caller's
 * among them. */
#define MG_THREADS_MIN 2u
#define MG_THREADS_MAX 4u

/* Which guard page the buffers are pushed against. With `after`, each buffer
 * sits as high as its alignment allows, so it ends flush with the guard page
 * after it when its end is page aligned (the sweep always includes that
 * alignment) and within 63 bytes of it otherwise. With `before`, each buffer
 * starts `align` bytes after the guard page before it (flush at align 0). */
enum mg_place { MG_PLACE_AFTER, MG_PLACE_BEFORE };

/* Where the buffers go beyond the guard pages (docs/placements.md), each
 * for a class of bug that guard-page placement never meets. `spot_arg` is
 * the spot's number:
 * - straddle-*: the named buffer(s) cross a boundary between two mapped
 *   pages, `spot_arg` bytes of it before the boundary (page-split paths,
 *   page-crossing checks before a wide load);
 * - page-diff: separate buffers with (dst - src) mod 4096 == spot_arg
 *   (paths chosen on 4K aliasing);
 * - split-2gib (i386): the lower buffer below 0x80000000, the upper one
 *   above it (signed pointer compares);
 * - span-2gib (i386): memmove's one buffer crosses 0x80000000, the lower
 *   pointer `spot_arg` bytes below it;
 * - far (64-bit): separate buffers more than 4 GiB apart (32-bit
 *   distances). src_above gives the order.
 * - span-4gib (64-bit): buffers above 4 GiB that cross a multiple of 4 GiB
 *   (2^32), `spot_arg` bytes of each below it (pointers truncated to 32
 *   bits, 32-bit pointer increments and compares that wrap): separate
 *   buffers each cross their own multiple, exactly 4 GiB apart, src_above
 *   giving the order; memmove's one buffer crosses one, its lower pointer
 *   `spot_arg` bytes below it.
 * The last four have their own mappings (placements.h). */
enum mg_spot {
	MG_SPOT_GUARD,
	MG_SPOT_STRADDLE_SRC,
	MG_SPOT_STRADDLE_DST,
	MG_SPOT_STRADDLE_BOTH,
	MG_SPOT_PAGE_DIFF,
	MG_SPOT_SPLIT_2GIB,
	MG_SPOT_SPAN_2GIB,
	MG_SPOT_FAR,
	MG_SPOT_SPAN_4GIB,
	MG_SPOT_COUNT
};

struct mg_case {
	const struct mg_variant *variant;
	size_t len;
	unsigned src_align; /* source address mod 64 */
	unsigned dst_align; /* destination address mod 64 (derived when overlapping) */
	bool overlap;	    /* memmove: dst = src + dist inside one buffer */
	long dist;	    /* dst - src when overlapping; 0 is d == s */
	int value;	    /* memset's c, passed whole to the variant */
	uint64_t seed;	    /* selects the random bytes the buffers are filled with */
	enum mg_place place;
	int src_above; /* separate buffers: the source lies above dst (1) or below (0) */
	int oracle;    /* huge length, but only 64 KiB of each buffer mapped (huge.h) */
	enum mg_spot spot;
	size_t spot_arg;
	/* Stopped after every instruction of the routine, with what a signal
	 * or interrupt handler may do there (interrupt.h). */
	bool interrupt;
	/* Run in this many threads at once, each on buffers of its own
	 * (thread.h); 0: in one. */
	unsigned threads;
	/* The stack pointer's alignment at entry, MG_ABI_STACK_AT_ENTRY
	 * (abi.h: x86-64 (rsp + 8) mod 64, i386 (esp + 4) mod 64, aarch64
	 * sp mod 64): any multiple of mg_stack_step below 64, as the ABI
	 * promises no more (docs/contract.md, X9, XK4, I5, IK2, A11). */
	unsigned stack_offset;
	/* The floating-point environment at entry (abi.h, mg_abi_fpenv_name:
	 * x86 MXCSR and the x87 control and status words, aarch64 FPCR and
	 * FPSR's cumulative flags, riscv64 frm, fflags, vxrm and vxsat): any a
	 * caller may legally run with, 0 the default (docs/contract.md, C17,
	 * X6, A7, R7, R9). Kernel code always gets 0, as kernel_fpu_begin
	 * loads the defaults. */
	unsigned fpenv;
	/* The environment drawn for an interrupted case was one the interrupt
	 * situation cannot keep here (mg_abi_fpenv_steppable): it ran in the
	 * default, and its verdict says what was not judged. */
	bool fpenv_unkept;
	/* The user copies (mg_op_is_user): the user buffer faults from byte
	 * fault_at on (docs/usercopy.md); false: it does not fault at all. */
	bool user_fault;
	size_t fault_at;
	/* The vector length the thread runs the routine with, in bytes
	 * (cpu.h, mg_cpu_vls: SVE's, which Linux makes the thread's; docs/
	 * contract.md, A12); 0 is the length the program started with. */
	unsigned vl;
	/* The top byte of the pointers the routine gets, where the top byte
	 * is ignored (cpu.h, mg_cpu_tbi; docs/contract.md, A14, AK3): dst's
	 * pointer carries `tag`; src's the same tag when it points into the
	 * same object (an overlapping memmove), else mg_src_tag(tag), another
	 * (separate buffers, as HWASan and MTE tag separate allocations
	 * apart); 0: untagged. */
	unsigned tag;
};

/* What a situation's own calls draw (thread.c's workers, interrupt.c's
 * handler; docs/contract.md, C14, C15): a length up to `most`, a third of
 * them up to 16 bytes and a third up to 256, where routines split into
 * paths; and an address mod MG_ALIGN_MOD that a contract requiring
 * `align` bytes allows. */
static inline size_t mg_draw_len(struct mg_rng *r, size_t most)
{
	uint64_t band = mg_rng_below(r, 3);
	size_t top = band == 0 ? 16 : band == 1 ? 256 : most;

	return (size_t)mg_rng_below(r, (top < most ? top : most) + 1);
}

static inline unsigned mg_draw_align(struct mg_rng *r, unsigned align)
{
	unsigned a = (unsigned)mg_rng_below(r, MG_ALIGN_MOD);

	return align >= MG_ALIGN_MOD ? 0 : a - a % (align ? align : 1);
}

/* A memmove's overlap for a drawn call of `len` bytes from src_align: dst
 * - src in [-(len + 8), len + 8]. True with *dist and *dst_align set when
 * that dst meets a contract requiring `dst_req` bytes; false (separate
 * buffers) when it does not. */
static inline bool mg_draw_overlap(struct mg_rng *r, size_t len, unsigned src_align, unsigned dst_req,
				   long *dist, unsigned *dst_align)
{
	long span = (long)len + 8;
	long d = (long)mg_rng_below(r, (uint64_t)(2 * span + 1)) - span;
	unsigned at = (unsigned)(((long)src_align + d) & (MG_ALIGN_MOD - 1));

	if (dst_req >= MG_ALIGN_MOD ? at != 0 : at % (dst_req ? dst_req : 1) != 0)
		return false;
	*dist = d;
	*dst_align = at;
	return true;
}

/* The tag of a separate source's pointer, never dst's. */
static inline unsigned mg_src_tag(const struct mg_case *c)
{
	return c->overlap || !c->tag ? c->tag : c->tag ^ 0x5au;
}

/* A pointer with `tag` in its top byte (64-bit only: 0 elsewhere). */
static inline void *mg_tagged(const void *p, unsigned tag)
{
#if UINTPTR_MAX > 0xffffffffu
	return (void *)((uintptr_t)p | (uintptr_t)tag << 56);
#else
	(void)tag;
	return (void *)(uintptr_t)p;
#endif
}

/* Whether the case's thread sets its vector length before the call: it
 * names one, or the routine may use it (SVE). */
static inline bool mg_case_sets_vl(const struct mg_case *c)
{
	return c->vl || (c->variant->features & MG_FEAT_SVE);
}

/* The step of a variant's stack offsets: what its contract's ABI promises
 * of the stack pointer at entry (16 bytes for user code, x86-64 kernel
 * code 8, i386 kernel code 4). */
unsigned mg_stack_step(const struct mg_variant *v);

/* The k-th stack offset the sweep and the stages give a variant's cases:
 * each run of as many consecutive k as there are offsets, from a multiple
 * of that count, takes every one, in an order that changes every 64 k (so
 * that no alignment of the buffers always meets the same offset). */
unsigned mg_stack_offset_nth(const struct mg_variant *v, uint64_t k);

/* How many floating-point environments a variant's cases may enter with:
 * MG_ABI_FPENV_COUNT for user code, 1 (the default) for kernel code and
 * under valgrind, which does not emulate the others. */
unsigned mg_fpenv_count(const struct mg_variant *v);

/* The k-th environment the sweep and the stages give a variant's cases:
 * the others in turn for one case in 8, the default for the rest, in an
 * order unrelated to the stack offsets'. */
unsigned mg_fpenv_nth(const struct mg_variant *v, uint64_t k);

/* The k-th vector length the sweep and the stages give a case: for one
 * case in four, by a hash of k, one of mg_cpu_vls(), for a variant that
 * may use SVE and a length up to MG_VL_MAX_LEN; else 0 (the start-up
 * length). A
 * routine's vector loop runs from a few vectors on, and emulated SVE at
 * 16-byte vectors costs four times the start-up 64 per byte: the budgeted
 * sweep's first pass, every length once, would spend its time on them. */
#define MG_VL_MAX_LEN ((size_t)64 << 10)
unsigned mg_vl_nth(const struct mg_case *c, uint64_t k);

/* The k-th tag the sweep and the stages give a case: 0 for half of them,
 * a hash of k for the others; 0 where the top byte is not ignored. */
unsigned mg_tag_nth(uint64_t k);

/* The machine state at entry the sweep and the stages give their k-th
 * case: the stack offset, floating-point environment, vector length and
 * tag, each by its rule above (the caller's freedoms, docs/contract.md). */
void mg_case_vary_entry(struct mg_case *c, uint64_t k);

/* What a case's buffers hold (docs/contract.md, C12): the pool's random
 * bytes, or, for one case in four of the full seeds the sweep and the
 * fuzzers draw, a pattern random bytes all but never hold: every source
 * byte 0, every one 0xff, every 8 bytes a signalling NaN (a double's), or
 * the destination already holding what it will be given. A seed written by
 * hand (memgate run's default 0, any below 2^60) fills from the pool.
 * Patterns are for cases whose window fits MG_PATTERN_BYTES. */
enum mg_fill {
	MG_FILL_POOL,
	MG_FILL_ZERO,
	MG_FILL_ONES,
	MG_FILL_SNAN,
	MG_FILL_EQUAL,
};
#define MG_PATTERN_BYTES ((size_t)80 << 10)

/* The seed's top four bits: the sweep's seeds are mixed (rng.h), so each
 * pattern gets one case in 16, and a seed below 2^60 gets the pool. */
static inline enum mg_fill mg_case_fill(const struct mg_case *c)
{
	unsigned k = (unsigned)(c->seed >> 60);

	return k < 12 ? MG_FILL_POOL : (enum mg_fill)(k - 11);
}

/* "all zero", "all 0xff", "signalling NaNs", "dst already equal", or NULL. */
const char *mg_fill_name(enum mg_fill fill);

/* Called for each case of a sweep; returns non-zero to stop it. */
typedef int (*mg_case_fn)(const struct mg_case *c, void *ctx);

/* The program name used in replay commands (argv[0]). */
extern const char *mg_program;
/* What runs this build when it is not native (its qemu-user command, as
 * replay lines print it); "" natively. */
extern const char *const mg_runner;
/* What runs this process's replay lines: mg_runner, or under a CPU model
 * only another qemu has (armhf's VFPv3-D16 model), the command make
 * verify and the gate name in MEMGATE_RUNNER. */
const char *mg_replay_runner(void);

/* Checks that the case is one the sandbox can run and the variant's contract
 * allows; on failure writes why into `why` and returns false. */
bool mg_case_valid(const struct mg_case *c, char *why, size_t size);

/* True if both describe the same call: the fields that matter for the
 * case's kind (dist only when overlapping, src_above only when not). */
bool mg_case_equal(const struct mg_case *a, const struct mg_case *b);

/* The case in words: "memmove len 17, src%64 3, dst = src - 4, ...". */
void mg_case_describe(const struct mg_case *c, char *out, size_t size);

/* A command as its words, for the records (an argv, not a shell line). */
#define MG_ARGV_MAX 32
struct mg_argv {
	const char *argv[MG_ARGV_MAX];
	int argc;
	char text[1024];
	size_t used;
};
/* Appends each space-separated word of `words`. */
void mg_argv_add_words(struct mg_argv *a, const char *words);
/* The words joined by spaces: the command line as printed. */
void mg_argv_join(const struct mg_argv *a, char *out, size_t size);

/* The command that replays exactly this case, appended to `a`. */
void mg_case_replay_argv(const struct mg_case *c, struct mg_argv *a);
/* The same as a shell command line. */
void mg_case_replay(const struct mg_case *c, char *out, size_t size);

const char *mg_place_name(enum mg_place place);

/* "guard", "straddle-src", ...; mg_spot_parse returns 0 for an unknown name. */
const char *mg_spot_name(enum mg_spot spot);
int mg_spot_parse(const char *name, enum mg_spot *out);

static inline bool mg_spot_straddles_src(enum mg_spot s)
{
	return s == MG_SPOT_STRADDLE_SRC || s == MG_SPOT_STRADDLE_BOTH;
}

static inline bool mg_spot_straddles_dst(enum mg_spot s)
{
	return s == MG_SPOT_STRADDLE_DST || s == MG_SPOT_STRADDLE_BOTH;
}

/* The spots with their own mappings, outside the sandbox (placements.c). */
static inline bool mg_spot_is_remote(enum mg_spot s)
{
	return s == MG_SPOT_SPLIT_2GIB || s == MG_SPOT_SPAN_2GIB || s == MG_SPOT_FAR ||
	       s == MG_SPOT_SPAN_4GIB;
}

/* Puts the case's buffers at `spot` and derives the alignments the spot
 * fixes: a straddling buffer starts spot_arg bytes before a page boundary;
 * with page-diff, dst%64 follows from src%64. */
void mg_case_set_spot(struct mg_case *c, enum mg_spot spot, size_t arg);

/* Lengths past the sandbox, and oracle cases, go to the huge check. */
static inline bool mg_case_is_huge(const struct mg_case *c)
{
	return c->oracle || c->len > MG_MAX_LEN;
}

/* The operations that take lengths past the sandbox (the 4 GiB+ check; a
 * 32-bit build runs memmove's alone, mg_huge_applies): not the page ones. */
static inline bool mg_op_takes_huge(enum mg_op op)
{
	return op == MG_MEMCPY || op == MG_MEMMOVE || op == MG_MEMSET || op == MG_MEMPCPY;
}

static inline bool mg_op_has_src(enum mg_op op)
{
	return op == MG_MEMCPY || op == MG_MEMMOVE || op == MG_COPY_PAGE || op == MG_MEMPCPY ||
	       op == MG_COPY_FROM_USER || op == MG_COPY_TO_USER;
}

/* The kernel's user copies: one side is user memory, which may fault. */
static inline bool mg_op_is_user(enum mg_op op)
{
	return op == MG_COPY_FROM_USER || op == MG_COPY_TO_USER || op == MG_CLEAR_USER;
}

/* Whether the user buffer is the source (copy_from_user) or the
 * destination (copy_to_user, clear_user). */
static inline bool mg_user_is_src(enum mg_op op)
{
	return op == MG_COPY_FROM_USER;
}

/* The alignment mod 64 of a user buffer that faults from byte k on: byte k
 * starts a page. */
static inline unsigned mg_fault_align(size_t k)
{
	return (unsigned)(-k & (MG_ALIGN_MOD - 1));
}

/* Makes the case's user buffer fault from byte k on, its alignment the one
 * that follows. */
static inline void mg_case_set_fault(struct mg_case *c, size_t k)
{
	c->user_fault = true;
	c->fault_at = k;
	if (mg_user_is_src(c->variant->op))
		c->src_align = mg_fault_align(k);
	else
		c->dst_align = mg_fault_align(k);
}

/* Makes `c` an overlapping memmove with dst = src + dist (its dst alignment
 * follows from the source's). */
static inline void mg_case_set_overlap(struct mg_case *c, long dist)
{
	c->overlap = true;
	c->dist = dist;
	c->dst_align =
		(unsigned)((long)c->src_align + dist % (long)MG_ALIGN_MOD + (long)MG_ALIGN_MOD) %
		MG_ALIGN_MOD;
}

#endif
