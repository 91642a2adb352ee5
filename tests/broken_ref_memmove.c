/* A broken oracle, to prove that build/test-reference can fail: it copies
 * forward even when dst overlaps the source from above. Linked in place of
 * reference/ref_memmove.c into build/test-reference-broken. */
#include "reference.h"

void *ref_memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
