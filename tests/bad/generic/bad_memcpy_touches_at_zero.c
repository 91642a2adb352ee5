/* A do-while copy: runs its body once before testing n, so a zero-length
 * call still reads (and writes) memory. */
#include <stddef.h>

void *mg_generic_bad_memcpy_touches_at_zero(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;

	do
		*d++ = *s++;
	while (--n && n != (size_t)-1);
	return dst;
}
