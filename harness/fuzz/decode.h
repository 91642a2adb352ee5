/* Fuzz inputs: any byte string decodes to one valid case of a target's
 * operation family, and any case encodes to a short input that decodes back
 * to it (for seeds, regressions and reports).
 *
 * Like LLVM's FuzzedDataProvider, fields are taken from the END of the input,
 * so the fuzzer's favourite mutations (appending, truncating) leave the
 * decisions that matter most in place; a field the input is too short for
 * reads as zero. From the last byte backwards:
 *
 *	selector  1 byte   which variant of the family (ignored when pinned)
 *	lenclass  1 byte   how to read the length (exact, tiny, powers of two..);
 *	                   a long length is kept with a probability
 *	                   inversely proportional to its cost, decided by a
 *	                   hash of the whole input (mg_encode sets the spare
 *	                   dist, or value, so that its length is kept)
 *	lenraw    4 bytes
 *	srcbyte   1 byte   source alignment (bits 0-5), place before (bit 6),
 *	                   source above dst (bit 7)
 *	dstbyte   1 byte   destination alignment (bits 0-5), overlap (bit 6)
 *	dist      4 bytes  memmove's dst - src when overlapping (signed); the
 *	                   user copies' fault: none when its low two bits are
 *	                   0, else from byte (dist >> 2) mod len on
 *	value     4 bytes  memset's int c
 *	seed      8 bytes  the fill seed
 *	spot      1 byte   where the buffers go (mod 8): 0-3 at guard pages,
 *	                   4 src, 5 dst, 6 both straddling a page boundary,
 *	                   7 page-diff (docs/placements.md)
 *	spotarg   4 bytes  the straddle's split (1 + spotarg mod (len - 1)) or
 *	                   (dst - src) mod 4096
 *	situation 2 bytes  MG_SITUATION_INTERRUPT: the routine is stopped at
 *	                   every instruction (interrupt.h), where that can be
 *	                   done; 0x5402 to 0x5404: the case runs in 2 to 4
 *	                   threads at once, each on buffers of its own
 *	                   (thread.h), where its length and spot allow; any
 *	                   other value: neither. A random input reaches
 *	                   either once in 65536 or so: a stepped case costs
 *	                   hundreds of plain ones, a threaded one tens.
 *	stack     1 byte   the stack pointer's alignment at entry: offset
 *	                   number (byte mod the variant's count of them) times
 *	                   mg_stack_step (case.h; docs/contract.md, X9)
 *	fpenv     1 byte   the floating-point environment at entry: byte mod
 *	                   mg_fpenv_count (case.h; docs/contract.md, C17, X6,
 *	                   A7)
 *	vl        1 byte   the vector length, for a routine that may use SVE:
 *	                   byte mod 6, 0 the start-up length, k the k-th power
 *	                   of two from 16 bytes (cpu.h), where the CPU has it
 *	                   (else the start-up one; docs/contract.md, A12)
 *	tag       1 byte   the pointers' top byte (case.h), where it is
 *	                   ignored, else 0 (docs/contract.md, A14)
 *
 * Integers are big-endian counting from the end, i.e. the byte nearest the
 * end is the least significant. Bytes before these 35 are ignored. Each
 * field added came first, so an input from before it still decodes to the
 * same case: a 24-byte one at guard pages, a 29-byte one uninterrupted, a
 * 31-byte one with the stack aligned as the harness always had it
 * (offset 0), a 32-byte one in the default floating-point environment, a
 * 33-byte one at the start-up vector length, a 34-byte one untagged. A spot
 * the case cannot take (a straddle of length 1, page-diff for memset, a
 * page routine's aligned buffers) decodes as guard. */
#ifndef MG_DECODE_H
#define MG_DECODE_H

#include "case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MG_INPUT_BYTES	   29u /* a case that is not interrupted */
#define MG_INPUT_SITUATION_BYTES 31u /* one that is, or in threads */
#define MG_INPUT_STACK_BYTES 32u /* one with a stack offset */
#define MG_INPUT_FPENV_BYTES 33u /* one with a floating-point environment */
#define MG_INPUT_VL_BYTES 34u /* one with a vector length */
#define MG_INPUT_TAG_BYTES 35u /* one with tagged pointers */
#define MG_INPUT_MAX_BYTES MG_INPUT_TAG_BYTES
#define MG_SITUATION_INTERRUPT 0x5354u
/* 0x5400 + N: the case runs in N threads at once (thread.h), N from
 * MG_THREADS_MIN to MG_THREADS_MAX. */
#define MG_SITUATION_THREADS 0x5400u
#define MG_FAMILY_MAX	   32u /* variants one target picks among */
#define MG_DEFAULT_MAX_LEN ((size_t)4 << 20)
/* Cost-aware lengths (decode.c): a case costs about one short case more
 * per MG_COST_UNIT bytes while its buffers stay in the caches, and past
 * MG_COST_FAR, where they leave them, per MG_COST_FAR_UNIT bytes. Measured
 * in the fuzz targets' check time (make bench-fuzz): with 1 + len / 4 KiB
 * all the way, lengths of 64 KiB and more took 35-60% of it. */
#define MG_COST_UNIT	 ((size_t)4 << 10)
#define MG_COST_FAR	 ((size_t)64 << 10)
#define MG_COST_FAR_UNIT ((size_t)1 << 10)

/* One fuzz target: an operation family and the variants it picks among. */
struct mg_target {
	const char *family; /* "memcpy", "memmove", "memset", "page", "usercopy" */
	const struct mg_variant *pool[MG_FAMILY_MAX];
	unsigned count;
	bool pinned;	/* one variant, named by the user */
	size_t max_len; /* decoded lengths are folded below this */
};

/* The families, for usage messages: "memcpy, memmove, memset, page, usercopy". */
extern const char mg_family_names[];

/* Sets up a target for `family`. With `pinned` (a variant name) it runs
 * only that variant, known-bad or not; otherwise it picks among the main
 * table's variants of the family that must pass and that this CPU can run.
 * On error writes one line into `why` and returns false. */
bool mg_target_init(struct mg_target *t, const char *family, const char *pinned, char *why,
		    size_t size);

/* The family a variant's operation belongs to. */
const char *mg_family_of(enum mg_op op);

/* Decodes any input into a case the sandbox can run (mg_case_valid holds). */
void mg_decode(const struct mg_target *t, const uint8_t *data, size_t size, struct mg_case *out);

/* How many bytes mg_encode writes for `c`: MG_INPUT_BYTES, or
 * MG_INPUT_SITUATION_BYTES for a case in a situation (interrupted,
 * threads), MG_INPUT_STACK_BYTES for one with a stack offset, or
 * MG_INPUT_FPENV_BYTES for one with a floating-point environment, or
 * MG_INPUT_VL_BYTES for one with a vector length, or MG_INPUT_TAG_BYTES
 * (MG_INPUT_MAX_BYTES) for one with tagged pointers. */
static inline size_t mg_input_size(const struct mg_case *c)
{
	if (c->tag)
		return MG_INPUT_TAG_BYTES;
	if (c->vl)
		return MG_INPUT_VL_BYTES;
	if (c->fpenv)
		return MG_INPUT_FPENV_BYTES;
	if (c->stack_offset)
		return MG_INPUT_STACK_BYTES;
	return c->interrupt || c->threads ? MG_INPUT_SITUATION_BYTES : MG_INPUT_BYTES;
}

/* Writes the mg_input_size(c) bytes of the input that decodes to `c` on a
 * target pinned to c->variant (or, unpinned, on one whose pool holds it).
 * The case must be valid and within the target's max_len. */
void mg_encode(const struct mg_target *t, const struct mg_case *c,
	       uint8_t out[MG_INPUT_MAX_BYTES]);

/* Sets the selector byte of an input mg_encode wrote for `c` (which
 * variant an unpinned target runs) and keeps c's length, which a hash of
 * every byte decides. */
void mg_encode_selector(const struct mg_case *c, unsigned selector,
			uint8_t out[MG_INPUT_MAX_BYTES]);

/* A coarse class of a length, for coverage cells and summaries:
 * 0, 1-7, 8-15, 16-31, ..., then wider bands up to the maximum. */
#define MG_LEN_CLASSES 14u
unsigned mg_len_class(size_t len);

#endif
