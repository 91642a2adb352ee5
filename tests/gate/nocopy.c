/* A memcpy that copies nothing and returns dst: wrong, for the gate's fail-closed tests. */
#include <stddef.h>

void *nocopy(void *d, const void *s, size_t n);

void *nocopy(void *d, const void *s, size_t n)
{
	(void)s;
	(void)n;
	return d;
}
