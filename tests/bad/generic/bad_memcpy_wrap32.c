/* Counts its way along dst by the low 32 bits of the pointer, as a routine
 * that keeps a pointer or its end in a 32-bit register does: right unless
 * dst crosses a multiple of 4 GiB, where the end's low half wraps below the
 * start's and nothing is copied. Only span-4gib puts a buffer there. */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memcpy_wrap32(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint32_t at = (uint32_t)(uintptr_t)dst;
	uint32_t end = at + (uint32_t)n; /* the bug: wraps at 2^32 */

	for (; at < end; at++)
		*d++ = *s++;
	return dst;
}
