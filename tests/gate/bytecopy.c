/* A correct byte-by-byte memcpy: what every fail-closed test needs accepted where all checks can run. */
#include <stddef.h>

void *bytecopy(void *d, const void *s, size_t n);

void *bytecopy(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	const unsigned char *from = s;
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	return d;
}
