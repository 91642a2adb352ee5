/* Addresses the destination as src + (dst - src) with the distance kept in
 * 32 bits: right while the buffers are less than 2 GiB apart, a stray write
 * when they are more than 4 GiB apart (the far spot). */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memcpy_dist32(void *dst, const void *src, size_t n)
{
	int32_t dist = (int32_t)((uintptr_t)dst - (uintptr_t)src); /* the bug */
	const volatile unsigned char *s = src;
	volatile unsigned char *d = (volatile unsigned char *)((uintptr_t)src + (intptr_t)dist);

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
