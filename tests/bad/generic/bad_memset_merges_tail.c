/* A memset that fills its ends by reading the aligned 8-byte word that
 * holds them, merging c into the buffer's bytes and writing the word back.
 * Bytes and bounds are right, since the word is put back as it was read;
 * but the bytes next to the buffer are written too, and a store another
 * thread makes to them between the read and the write is lost (C11
 * 5.1.2.4). Only the interrupt situation, which changes them while the
 * routine runs, can see it; x86 only (docs/contract.md, C13). */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memset_merges_tail(void *d, int c, size_t n);

static void merge_word(volatile uint64_t *word, const unsigned char *lo, const unsigned char *hi,
		       unsigned char c)
{
	uint64_t w = *word;
	unsigned char *b = (unsigned char *)&w;

	for (unsigned i = 0; i < 8; i++) {
		const unsigned char *at = (const unsigned char *)word + i;
		if (at >= lo && at < hi)
			b[i] = c;
	}
	*word = w;
}

void *mg_generic_bad_memset_merges_tail(void *d, int c, size_t n)
{
	unsigned char *lo = d, *hi = lo + n;
	uintptr_t first = (uintptr_t)lo & ~(uintptr_t)7, last = ((uintptr_t)hi + 7) & ~(uintptr_t)7;

	for (uintptr_t w = first; n && w < last; w += 8)
		merge_word((volatile uint64_t *)w, lo, hi, (unsigned char)c);
	return d;
}
