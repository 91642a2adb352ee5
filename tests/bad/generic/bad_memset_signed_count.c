/* The length compared as a signed int: from 2 GiB on, the count is negative
 * and nothing is written. */
#include <stddef.h>

void *mg_generic_bad_memset_signed_count(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	int count = (int)n; /* BUG: n does not fit an int from 2^31 on */

	for (int i = 0; i < count; i++)
		d[i] = (unsigned char)c;
	return dst;
}
