/* Over-read: after a correct copy, looks at the byte after the source, as a
 * loop that loads one element ahead would. */
#include <stddef.h>

void *mg_generic_bad_memcpy_overread_src(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const volatile unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	(void)s[n];
	return dst;
}
