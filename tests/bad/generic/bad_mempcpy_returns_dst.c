/* Wrong return for a mempcpy: hands back dst, as memcpy would, not dst + n. */
#include <stddef.h>

void *mg_generic_bad_mempcpy_returns_dst(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
