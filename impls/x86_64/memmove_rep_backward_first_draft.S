/* memmove_rep_backward_first_draft: VARIANTS.md #11, KNOWN-BAD.
 *
 * The first posting of the string-instruction memmove in the 2010 thread,
 * kept wrong on purpose: the suite must fail it (out-of-bounds read,
 * out-of-bounds write, wrong result). Do not "fix" it; #10 is the fix.
 *
 * void *mg_x86_64_memmove_rep_backward_first_draft(void *d, const void *s,
 *						     size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 *	if (d < s)  forward copy (mg_x86_64_forward_copy) -- correct
 *	else        std; rdi = d+n, rsi = s+n; rep movsq for n/8;
 *	            rep movsb for n%8; cld.
 *
 * The two bugs, as posted:
 *  - the pointers start one past the end instead of at the last quadword
 *    (no -8), so with DF = 1 the first quadword moved is [s+n, s+n+8) to
 *    [d+n, d+n+8): 8 bytes read and written past the end of both buffers;
 *  - the byte tail is run from wherever rep movsq left the pointers, without
 *    re-aiming them at the last remaining byte (no +7).
 * With k = n % 8, the offsets actually copied are [k+8, n+8) and [1, k]
 * instead of [0, n): offset 0 and offsets k+1 .. k+7 are never written, and
 * offsets n .. n+7 are read and written out of bounds. For n < 8 only the
 * byte stage runs: it reads and writes offset n, one past the end, and
 * misses offset 0.
 *
 * Both counts are full 64-bit here (VARIANTS.md describes no truncation for
 * this draft), so its failures are exactly the two pointer bugs above.
 * DF is still cleared before returning.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memmove_rep_backward_first_draft)
	cmpq	%rsi, %rdi
	jb	mg_x86_64_forward_copy	/* d < s */

	movq	%rdi, %rax
	addq	%rdx, %rdi		/* BUG (as posted): d+n, not d+n-8 */
	addq	%rdx, %rsi		/* BUG (as posted): s+n, not s+n-8 */
	movq	%rdx, %rcx
	shrq	$3, %rcx
	std
	rep movsq
	/* BUG (as posted): no +7 re-aim before the byte tail. */
	movq	%rdx, %rcx
	andq	$7, %rcx
	rep movsb
	cld
	ret
END(mg_x86_64_memmove_rep_backward_first_draft)
