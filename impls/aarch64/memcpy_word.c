/* memcpy_word: a word-at-a-time memcpy in C ("Plain C versions" in
 * VARIANTS.md), written for AArch64.
 *
 * Byte copies until dst is 8-byte aligned, then aligned 8-byte stores of
 * 8-byte loads from wherever the source is, then the remaining bytes. The
 * source is not aligned to match: AArch64 loads from normal memory at any
 * alignment (one or two cache accesses), which is why this lives here and
 * not in impls/generic, where a strict-alignment CPU would fault.
 *
 * Build with -fno-builtin (and, with gcc, -fno-tree-loop-distribute-
 * patterns): otherwise the compiler may turn the loops back into a call to
 * the C library's memcpy, and we would be testing libc instead of this. */
#include <stddef.h>
#include <stdint.h>

/* The words alias whatever the caller's buffers hold (may_alias), and the
 * source words sit at any address (aligned(1) makes the compiler emit plain
 * unaligned loads rather than assume alignment). */
typedef uint64_t __attribute__((__may_alias__)) mg_word_t;
typedef uint64_t __attribute__((__may_alias__, __aligned__(1))) mg_uword_t;

void *mg_aarch64_memcpy_word(void *dst, const void *src, size_t n);

void *mg_aarch64_memcpy_word(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* Head: single bytes up to the first 8-byte boundary of dst. */
	while (n != 0 && ((uintptr_t)d & 7u) != 0) {
		*d++ = *s++;
		n--;
	}

	/* Body: aligned stores, loads at any alignment. */
	mg_word_t *dw = (mg_word_t *)(void *)d;
	const mg_uword_t *sw = (const mg_uword_t *)(const void *)s;
	for (; n >= 8; n -= 8)
		*dw++ = *sw++;

	/* Tail: fewer than 8 bytes left. */
	d = (unsigned char *)dw;
	s = (const unsigned char *)sw;
	for (; n != 0; n--)
		*d++ = *s++;

	return dst;
}
