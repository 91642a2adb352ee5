/* A memcpy that bounces its bytes through a static buffer, 256 bytes at a
 * time, and from 1 to 16 KiB yields the CPU between storing a chunk there and
 * loading it back (as a slow path that waits might). It saves the buffer on entry and
 * puts it back before it returns, so a call from a signal handler, which
 * runs to its end inside the interrupted one, leaves it as it was: it is
 * reentrant, and the interrupt situation passes it. Two threads in it at
 * once take each other's chunks: only the threads situation (docs/
 * contract.md, C14, S2) sees that. memcpy_thread_bounce is its twin. */
#include <sched.h>
#include <stddef.h>

#ifndef BOUNCE_NAME /* the twin includes this file with its own */
#define BOUNCE_NAME    mg_generic_bad_memcpy_shared_bounce
#define BOUNCE_STORAGE static
#endif

void *BOUNCE_NAME(void *d, const void *s, size_t n);

#define CHUNK	  256
/* The lengths that yield: a middle band (the threads stage's long cases),
 * so that the sweep's many short and few huge calls stay quick. */
#define SLOW_FROM 1024
#define SLOW_TO	  16384
/* A yield at every chunk made each call wait a time slice 64 times on a
 * loaded machine (a worker's rounds ran past the watchdog); one in 16
 * chunks leaves the window as wide. */
#define YIELD_EVERY 16
BOUNCE_STORAGE unsigned char bounce[CHUNK];
/* The buffer is memory the other calls may see, not a register. */
#define BARRIER() __asm__ volatile("" ::: "memory")

void *BOUNCE_NAME(void *d, const void *s, size_t n)
{
	unsigned char *dst = d, saved[CHUNK];
	const unsigned char *src = s;
	size_t used = n < CHUNK ? n : CHUNK;
	int slow = n >= SLOW_FROM && n <= SLOW_TO;

	for (size_t i = 0; i < used; i++)
		saved[i] = bounce[i];
	for (size_t chunk = 0; n; chunk++) {
		size_t k = n < CHUNK ? n : CHUNK;
		for (size_t i = 0; i < k; i++)
			bounce[i] = src[i];
		BARRIER();
		if (slow && chunk % YIELD_EVERY == 0)
			sched_yield();
		BARRIER();
		for (size_t i = 0; i < k; i++)
			dst[i] = bounce[i];
		dst += k;
		src += k;
		n -= k;
	}
	for (size_t i = 0; i < used; i++)
		bounce[i] = saved[i];
	return d;
}
