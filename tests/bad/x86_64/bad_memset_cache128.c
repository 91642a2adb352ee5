/* A memset that clears in pieces of 1/128 of the shared cache, from
 * glibc's __x86_shared_cache_size: it assumes the cache holds at least 128
 * bytes, as glibc's i686 SSE2 memset does. Below 128 the piece is 0 and
 * the division by it traps (glibc 2.33-2.34 stored 0 under QEMU, whose CPU
 * reports no cache: BZ 28784; 2.35 keeps its 1 MiB default instead). The
 * table runs it with the 0 of bad_tunable_values.c; scripts/gate runs it
 * under the values of the glibc release --glibc-version names
 * (docs/tunables.md). */
#include <stddef.h>
#include <stdint.h>

extern long __x86_shared_cache_size;

typedef uint64_t __attribute__((may_alias, aligned(1))) word;

static void fill(unsigned char *d, int c, size_t n)
{
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(word *)(d + i) = w;
	for (; i < n; i++)
		d[i] = (unsigned char)c;
}

void *mg_x86_64_bad_memset_cache128(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	size_t piece = (size_t)__x86_shared_cache_size >> 7;
	size_t pieces = n / piece;
	size_t i = 0;

	for (size_t k = 0; k < pieces; k++, i += piece)
		fill(d + i, c, piece);
	fill(d + i, c, n - i);
	return dst;
}
