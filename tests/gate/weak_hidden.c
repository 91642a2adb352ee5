/* A correct memcpy whose entry point is weak and whose helper is hidden: both kinds of symbol build and pass. */
#include <stddef.h>

__attribute__((visibility("hidden"))) void weak_hidden_bytes(unsigned char *to, const unsigned char *from, size_t n);
void *weak_hidden(void *d, const void *s, size_t n) __attribute__((weak));

__attribute__((visibility("hidden"))) void weak_hidden_bytes(unsigned char *to, const unsigned char *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
}

void *weak_hidden(void *d, const void *s, size_t n)
{
	weak_hidden_bytes(d, s, n);
	return d;
}
