/* Uses all of c: fine for 0..255, wrong for ints beyond a byte, which the
 * C standard says are converted to unsigned char. */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memset_whole_int(void *dst, int c, size_t n)
{
	volatile unsigned char *d = dst;
	uint64_t word = (uint64_t)(unsigned)c * 0x0101010101010101ull;

	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)(word >> (8 * (i % 8)));
	return dst;
}
