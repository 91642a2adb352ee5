/* Tail over-write: pads the copy with zeros up to the next multiple of 8, as
 * a word-at-a-time tail that forgot to stop at n would. */
#include <stddef.h>

void *mg_generic_bad_memcpy_tail_overwrite(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = s[i];
	for (; i % 8; i++)
		d[i] = 0;
	return dst;
}
