/* A byte copy that sets errno first, as a library function may where its
 * description does not document errno (C11 7.5p3; docs/contract.md, C19):
 * nothing failed, and the caller may not rely on errno keeping its value
 * (must pass). */
#include <errno.h>
#include <stddef.h>

void *mg_generic_memcpy_sets_errno(void *dst, const void *src, size_t n);

void *mg_generic_memcpy_sets_errno(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	errno = EINVAL;
	while (n--)
		*d++ = *s++;
	return dst;
}
