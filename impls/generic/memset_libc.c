/* The C library's memset as a variant.
 *
 * The variant table needs a symbol of our own (mg_generic_memset_libc), and
 * the harness calls it through a function pointer, so the compiler cannot
 * inline or fold the fill: with -fno-builtin this compiles to a tail jump
 * into libc's memset, which is the code under test. */
#include <stddef.h>
#include <string.h>

void *mg_generic_memset_libc(void *d, int c, size_t n);

void *mg_generic_memset_libc(void *d, int c, size_t n)
{
	return memset(d, c, n);
}
