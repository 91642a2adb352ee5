/* Makes the source view writable with mprotect, then writes it: rejected at build time (calls mprotect). */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

void *calls_mprotect(void *d, const void *s, size_t n);

void *calls_mprotect(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	unsigned char *from = (unsigned char *)s;
	uintptr_t page = (uintptr_t)s & ~(uintptr_t)4095;
	if (n > 0 && mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) == 0)
		from[0] = 0x5a;
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	return d;
}
