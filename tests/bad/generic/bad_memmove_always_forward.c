/* Wrong overlap direction: a forward copy is wrong when dst overlaps the
 * source from above, since it overwrites bytes before reading them. */
#include <stddef.h>

void *mg_generic_bad_memmove_always_forward(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
