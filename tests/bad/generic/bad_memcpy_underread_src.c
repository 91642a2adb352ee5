/* Under-read: looks at the byte before the source, as a loop that primes a
 * register from p[-1] would. */
#include <stddef.h>

void *mg_generic_bad_memcpy_underread_src(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const volatile unsigned char *s = src;

	(void)s[-1];
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
