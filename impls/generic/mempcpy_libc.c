/* mempcpy on the C library's memcpy: returns the end of the copy, dst + n.
 * (mempcpy itself is a GNU extension; this keeps the variant portable.) */
#include <stddef.h>
#include <string.h>

void *mg_generic_mempcpy_libc(void *d, const void *s, size_t n);

void *mg_generic_mempcpy_libc(void *d, const void *s, size_t n)
{
	return (unsigned char *)memcpy(d, s, n) + n;
}
