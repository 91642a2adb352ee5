/* A memcpy that never returns once n is 7 (no system call, so it passes the build): a timeout finding, and the gate still ends by its deadline. */
#include <stddef.h>

void *spins_forever(void *d, const void *s, size_t n);

void *spins_forever(void *d, const void *s, size_t n)
{
	volatile int forever = n == 7;
	unsigned char *to = d;
	const unsigned char *from = s;
	while (forever)
		;
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	return d;
}
