#include "reference.h"

void *ref_memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char byte = (unsigned char)c; /* only the low byte counts */

	for (size_t i = 0; i < n; i++)
		d[i] = byte;
	return dst;
}
