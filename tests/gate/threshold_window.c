/* A memcpy with a block path from a threshold it reads, whose tail is
 * written for lengths at least 64 past the threshold: from T to T + 63 it
 * drops the last byte. The sweep's own lengths (every one to 1 KiB, then
 * powers of two and their neighbours) miss that window when T is not next
 * to a power of two; the lengths around the values a routine reads
 * (docs/tunables.md, "Lengths around the thresholds") take T itself.
 * tests/run.d/gate.sh gates it with --extern copy_threshold=50000. */
#include <stddef.h>

extern long copy_threshold;

void *threshold_window(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t t = (size_t)copy_threshold, i = 0;

	if (n < t) {
		for (; i < n; i++)
			d[i] = s[i];
		return dst;
	}
	/* The bug: the last block is assumed to end 64 bytes or more past t. */
	size_t end = n - t < 64 ? n - 1 : n;
	for (; i + 64 <= end; i += 64)
		for (size_t k = 0; k < 64; k++)
			d[i + k] = s[i + k];
	for (; i < end; i++)
		d[i] = s[i];
	return dst;
}
