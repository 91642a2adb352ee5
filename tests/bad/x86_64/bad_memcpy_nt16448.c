/* A memcpy whose large path, from glibc's
 * __x86_shared_non_temporal_threshold on, aligns dst with one 64-byte block
 * and then copies four pages at least once: it needs the threshold to be
 * at least 64 + 4 * 4096 = 16448 (0x4040), as glibc's
 * memmove-vec-unaligned-erms does (b446822b6a). glibc 2.33-2.36 could
 * store less (a machine without cache leaves gives 0, and any tunable
 * value was taken); 2.37 on clamps it. The table runs it with the 0 of
 * bad_tunable_values.c: a short copy runs off both buffers. */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t __attribute__((may_alias, aligned(1))) word;

extern long __x86_shared_non_temporal_threshold;

static void copy_bytes(unsigned char *d, const unsigned char *s, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(word *)(d + i) = *(const word *)(s + i);
	for (; i < n; i++)
		d[i] = s[i];
}

void *mg_x86_64_bad_memcpy_nt16448(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n < (size_t)__x86_shared_non_temporal_threshold) {
		copy_bytes(d, s, n);
		return dst;
	}
	size_t head = 64 - ((size_t)d & 63);
	copy_bytes(d, s, 64);
	d += head, s += head, n -= head;
	do {
		copy_bytes(d, s, 4 * 4096);
		d += 4 * 4096, s += 4 * 4096, n -= 4 * 4096;
	} while (n >= 4 * 4096);
	copy_bytes(d, s, n);
	return dst;
}
