/* A memcpy that skips the store of each 8-byte source word that is zero,
 * as if the destination had come from calloc: right for every source random
 * bytes make (a zero word is a 2^-64 chance), wrong for a source of zeros,
 * which is as valid a content as any (C11 7.24.1p3; docs/contract.md, C12).
 * Only the sweep's patterned fills show it. */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memcpy_skips_zero_words(void *d, const void *s, size_t n);

void *mg_generic_bad_memcpy_skips_zero_words(void *d, const void *s, size_t n)
{
	unsigned char *dst = d;
	const unsigned char *src = s;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w = 0;
		for (unsigned k = 0; k < 8; k++)
			w |= (uint64_t)src[i + k] << (8 * k);
		if (w == 0)
			continue; /* BUG: dst is not known to hold zeros */
		for (unsigned k = 0; k < 8; k++)
			dst[i + k] = (unsigned char)(w >> (8 * k));
	}
	for (; i < n; i++)
		dst[i] = src[i];
	return d;
}
