/* Writes into the source: stores back the very byte it read, so the bytes
 * never change and only the read-only source view can tell. */
#include <stddef.h>

void *mg_generic_bad_memcpy_writes_src(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	volatile unsigned char *s = (volatile unsigned char *)src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	if (n)
		s[0] = s[0];
	return dst;
}
