#include "reference.h"

#include <stdint.h>

/* Copies forward when the destination starts below the source, so each byte
 * is read before the copy overwrites it; otherwise from the end. */
void *ref_memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d < (uintptr_t)s) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		for (size_t i = n; i > 0; i--)
			d[i - 1] = s[i - 1];
	}
	return dst;
}
