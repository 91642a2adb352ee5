/* A memcpy with a "large copy" path taken from a tunable threshold (like
 * glibc's __x86_shared_non_temporal_threshold) and written for lengths of
 * 64 and more: it ends with one 64-byte block copied back from the end.
 * With the threshold below 64 a short copy takes it and reads and writes
 * before both buffers (glibc 2.34-2.35's memmove with the threshold at
 * 0x1000 ran off its buffers the same way). scripts/gate varies the value
 * with --extern bad_nt_threshold=V1,V2; the table's value is in
 * bad_nt_threshold_value.c. */
#include <stddef.h>

extern long long bad_nt_threshold;

static void copy64(unsigned char *d, const unsigned char *s)
{
	for (int i = 0; i < 64; i++)
		d[i] = s[i];
}

void *mg_generic_bad_memcpy_nt_threshold(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	if ((long long)n >= bad_nt_threshold) {
		for (; i + 64 <= n; i += 64)
			copy64(d + i, s + i);
		copy64(d + n - 64, s + n - 64);
		return dst;
	}
	for (; i < n; i++)
		d[i] = s[i];
	return dst;
}
