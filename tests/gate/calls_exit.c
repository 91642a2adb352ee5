/* Ends the process with _exit(0) halfway through the copy: rejected at build time (calls _exit). */
#include <stddef.h>
#include <unistd.h>

void *calls_exit(void *d, const void *s, size_t n);

void *calls_exit(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	const unsigned char *from = s;
	for (size_t i = 0; i < n; i++) {
		if (i == n / 2 && n > 8)
			_exit(0);
		to[i] = from[i];
	}
	return d;
}
