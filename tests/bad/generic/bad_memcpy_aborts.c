/* Takes the whole process down (an assertion, say) when n == 5: the sweep
 * must report it as a crash on that case and go on with the next variant. */
#include <stddef.h>
#include <stdlib.h>

void *mg_generic_bad_memcpy_aborts(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n == 5)
		abort();
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
