/* A correct word-at-a-time memmove in C: the issue "A verdict defined by
 * its cases" times the gate's default run on it (docs/benchmarks.md), and
 * word_memmove_dist3.c is its twin that the sweep itself must reject. */
#include <stddef.h>
#include <stdint.h>

void *word_memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s) {
		/* Forward: dst is below src, so every byte is read before the
		 * copy reaches it. */
		while (n && ((uintptr_t)d & 7)) {
			*d++ = *s++;
			n--;
		}
		if (((uintptr_t)s & 7) == 0)
			for (; n >= 8; n -= 8, d += 8, s += 8)
				*(uint64_t *)d = *(const uint64_t *)s;
		while (n--)
			*d++ = *s++;
	} else {
		d += n;
		s += n;
		while (n && ((uintptr_t)d & 7)) {
			*--d = *--s;
			n--;
		}
		if (((uintptr_t)s & 7) == 0)
			for (; n >= 8; n -= 8) {
				d -= 8;
				s -= 8;
				*(uint64_t *)d = *(const uint64_t *)s;
			}
		while (n--)
			*--d = *--s;
	}
	return dst;
}
