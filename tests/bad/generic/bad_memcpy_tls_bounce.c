/* A memcpy that stages copies of 1 KiB and more through a thread-local
 * 256-byte buffer, and copies shorter ones directly: thread-safe (each
 * thread stages in its own buffer), but not reentrant on its long path: a
 * signal handler's own long call, made while the interrupted call has
 * bytes staged, overwrites them. Caught only when the handler's call,
 * drawn from the case space, takes the long path too (docs/contract.md,
 * C15); the threads stage passes it. x86 only, as the interrupt
 * situation. memcpy_stack_bounce.c is its twin. */
#include <stddef.h>

#ifndef BOUNCE_NAME
#define BOUNCE_NAME    mg_generic_bad_memcpy_tls_bounce
#define BOUNCE_STORAGE static _Thread_local
#endif
#define LONG_PATH 1024u

void *BOUNCE_NAME(void *d, const void *s, size_t n);

void *BOUNCE_NAME(void *d, const void *s, size_t n)
{
	BOUNCE_STORAGE volatile unsigned char stage[256];
	unsigned char *dst = d;
	const unsigned char *src = s;

	if (n < LONG_PATH) {
		while (n--)
			*dst++ = *src++;
		return d;
	}
	while (n) {
		size_t k = n < sizeof stage ? n : sizeof stage;
		for (size_t i = 0; i < k; i++)
			stage[i] = src[i];
		for (size_t i = 0; i < k; i++)
			dst[i] = stage[i];
		dst += k;
		src += k;
		n -= k;
	}
	return d;
}
