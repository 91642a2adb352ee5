/* A hang on one length, as a loop whose counter skips past its end value. */
#include <stddef.h>

void *mg_generic_bad_memcpy_hangs_at_7(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n == 7)
		__asm__ volatile("" ::: "memory"); /* a side effect: the loop stays */
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
