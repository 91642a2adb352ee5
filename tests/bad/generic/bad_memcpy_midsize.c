/* Wrong only between 16 MiB and 256 MiB (a non-temporal path for mid-size
 * copies that drops the last byte): past the sandbox's lengths and below
 * 2 GiB, so only the huge check's mid-size lengths find it. */
#include <stddef.h>

#define MIB ((size_t)1 << 20)

void *mg_generic_bad_memcpy_midsize(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t end = n > 16 * MIB && n < 256 * MIB ? n - 1 : n;

	for (size_t i = 0; i < end; i++)
		d[i] = s[i];
	return dst;
}
