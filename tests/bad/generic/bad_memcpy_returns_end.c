/* Wrong return: hands back the end of the copy instead of dst. */
#include <stddef.h>

void *mg_generic_bad_memcpy_returns_end(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return d + n;
}
