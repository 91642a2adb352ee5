/* Under-write: stores one byte in front of the destination. */
#include <stddef.h>

void *mg_generic_bad_memcpy_write_before_dst(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;

	d[-1] = 0xa5;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
