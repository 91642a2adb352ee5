/* memset_word: a portable word-at-a-time memset ("Plain C versions" in
 * VARIANTS.md).
 *
 * Byte stores until dst is 8-byte aligned, then aligned 8-byte stores of the
 * fill byte replicated into every byte of a word, then the remaining bytes.
 * Only the low byte of c counts; the rest of c may be garbage.
 *
 * Build with -fno-builtin -fno-tree-loop-distribute-patterns: otherwise gcc
 * may recognise the loops as a fill and turn them back into a call to the C
 * library's memset, and we would be testing libc instead of this code. */
#include <stddef.h>
#include <stdint.h>

/* The word stores go to memory that the caller may have declared as some
 * other type; may_alias keeps them well defined under strict aliasing. */
#if defined(__GNUC__)
typedef uint64_t __attribute__((__may_alias__)) mg_word_t;
#else
typedef uint64_t mg_word_t;
#endif

void *mg_generic_memset_word(void *dst, int c, size_t n);

void *mg_generic_memset_word(void *dst, int c, size_t n)
{
	unsigned char *p = dst;
	const unsigned char b = (unsigned char)c;
	const uint64_t w = (uint64_t)b * 0x0101010101010101u;

	/* Head: single bytes up to the first 8-byte boundary (or the end). */
	while (n != 0 && ((uintptr_t)p & 7u) != 0) {
		*p++ = b;
		n--;
	}

	/* Body: p is 8-byte aligned here, so every word store is aligned. */
	mg_word_t *q = (mg_word_t *)(void *)p;
	for (; n >= 8; n -= 8)
		*q++ = w;

	/* Tail: fewer than 8 bytes left. */
	p = (unsigned char *)q;
	for (; n != 0; n--)
		*p++ = b;

	return dst;
}
