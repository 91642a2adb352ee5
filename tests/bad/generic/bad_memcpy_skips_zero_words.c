/* A memcpy that skips the store of each aligned 8-byte source word that is
 * zero, as if the destination had come from calloc: right for every source
 * random bytes make (a zero word is a 2^-64 chance), wrong for a source of
 * zeros, which is as valid a content as any (C11 7.24.1p3; docs/contract.md,
 * C12). Only the sweep's patterned fills show it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void *mg_generic_bad_memcpy_skips_zero_words(void *d, const void *s, size_t n);

void *mg_generic_bad_memcpy_skips_zero_words(void *d, const void *s, size_t n)
{
	unsigned char *dst = d;
	const unsigned char *src = s;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, src + i, 8);
		if (w != 0) /* BUG: dst is not known to hold zeros */
			memcpy(dst + i, &w, 8);
	}
	for (; i < n; i++)
		dst[i] = src[i];
	return d;
}
