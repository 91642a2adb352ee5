/* word_memmove.c with one bug: it copies forward when dst is 3 bytes above
 * src, so an overlapping move at that distance smears its first 3 bytes. The
 * sweep itself must reject it (tests/run.d/gate_budget.sh). */
#include <stddef.h>
#include <stdint.h>

void *word_memmove_dist3(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s || d - s == 3) { /* the bug: forward when dst is 3 above src */
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
