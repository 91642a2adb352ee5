/* A memcpy that bounces its bytes through a static 64-byte buffer: right
 * in a single thread, wrong when a signal handler calls it while it is
 * copying, though POSIX makes memcpy async-signal-safe (and thread-safe).
 * Only the interrupt situation, whose handler calls the routine, sees it;
 * x86 only (docs/contract.md, C15). */
#include <stddef.h>

void *mg_generic_bad_memcpy_static_scratch(void *d, const void *s, size_t n);

static volatile unsigned char bounce[64];

void *mg_generic_bad_memcpy_static_scratch(void *d, const void *s, size_t n)
{
	unsigned char *dst = d;
	const unsigned char *src = s;

	while (n) {
		size_t k = n < sizeof bounce ? n : sizeof bounce;
		for (size_t i = 0; i < k; i++)
			bounce[i] = src[i];
		for (size_t i = 0; i < k; i++)
			dst[i] = bounce[i];
		dst += k;
		src += k;
		n -= k;
	}
	return d;
}
