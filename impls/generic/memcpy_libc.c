/* The C library's memcpy as a variant.
 *
 * The variant table needs a symbol of our own (mg_generic_memcpy_libc), and
 * the harness calls it through a function pointer, so the compiler cannot
 * inline or fold the copy: with -fno-builtin this compiles to a tail jump
 * into libc's memcpy, which is the code under test. */
#include <stddef.h>
#include <string.h>

void *mg_generic_memcpy_libc(void *d, const void *s, size_t n);

void *mg_generic_memcpy_libc(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);
}
