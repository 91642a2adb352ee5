/* Copies half, then ends the whole process with status 0 when n >= 5, as a
 * routine that calls exit would: it never returns. Every mode must call it
 * a crash, never a pass, though the process "succeeded". */
#include <stddef.h>
#include <unistd.h>

void *mg_generic_bad_memcpy_exits_midway(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n / 2; i++)
		d[i] = s[i];
	if (n >= 5)
		_exit(0);
	for (size_t i = n / 2; i < n; i++)
		d[i] = s[i];
	return dst;
}
