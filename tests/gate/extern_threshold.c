/* A correct memcpy that reads a threshold given with --extern copy_threshold=VALUE: accepted, the data symbol defined by the gate. */
#include <stddef.h>

extern const long long copy_threshold;
void *extern_threshold(void *d, const void *s, size_t n);

void *extern_threshold(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	const unsigned char *from = s;
	size_t i = 0;
	if ((long long)n >= copy_threshold)
		for (; i + 8 <= n; i += 8)
			for (int k = 0; k < 8; k++)
				to[i + k] = from[i + k];
	for (; i < n; i++)
		to[i] = from[i];
	return d;
}
