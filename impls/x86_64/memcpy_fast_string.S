/* memcpy_fast_string: VARIANTS.md #14, the "fast string" memcpy of the 2009
 * thread "performance improvement for memcpy_64.S by fast string".
 *
 * void *mg_x86_64_memcpy_fast_string(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * rep movsq for n / 8 quadwords, then rep movsb for the n % 8 bytes left.
 * rep movsq leaves rdi/rsi just past what it copied, which is exactly where
 * the byte tail starts. DF = 0 on entry (ABI), so both run upwards.
 * The counts are full 64-bit, so lengths of 4 GiB and more are copied whole.
 * A zero count touches no memory, so n == 0 (and n < 8 for the quadword
 * part) is safe.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_fast_string)
	movq	%rdi, %rax		/* return value */
	movq	%rdx, %rcx
	shrq	$3, %rcx
	rep movsq
	movl	%edx, %ecx
	andl	$7, %ecx		/* n % 8 only needs the low bits */
	rep movsb
	ret
END(mg_x86_64_memcpy_fast_string)
