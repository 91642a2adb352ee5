/* A path chosen on (dst - src) mod 4096, as routines do to dodge 4K
 * aliasing between their loads and stores, with a bug in it: for a page or
 * more with the difference in [2048, 2112) it leaves the last byte out.
 * Guard-page placements only meet differences within 63 of 0 mod 4096;
 * the page-diff spot sweeps all of them. */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memcpy_4k_alias(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;
	size_t diff = ((uintptr_t)dst - (uintptr_t)src) & 4095;
	size_t end = n >= 4096 && diff >= 2048 && diff < 2112 ? n - 1 : n;

	for (size_t i = 0; i < end; i++)
		d[i] = s[i];
	return dst;
}
