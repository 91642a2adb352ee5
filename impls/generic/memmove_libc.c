/* The C library's memmove as a variant.
 *
 * The variant table needs a symbol of our own (mg_generic_memmove_libc), and
 * the harness calls it through a function pointer, so the compiler cannot
 * inline or fold the move: with -fno-builtin this compiles to a tail jump
 * into libc's memmove, which is the code under test. */
#include <stddef.h>
#include <string.h>

void *mg_generic_memmove_libc(void *d, const void *s, size_t n);

void *mg_generic_memmove_libc(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}
