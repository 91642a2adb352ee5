/* A memcpy that keeps a per-call value in a static variable: its tail's
 * length, n mod 16, stored before it copies the 16-byte blocks and read
 * back after them to copy the last bytes. From 1 to 16 KiB it yields the
 * CPU between the two (as a path that waits might; the sweep's many
 * shorter calls do not). It saves
 * the variable on entry and puts it back before it returns, so a call from
 * a signal handler leaves it as it was: it is reentrant. Threads whose
 * calls have the same length store the same value, and every call is
 * right; a thread whose call has a shorter tail stores it in another's
 * window, and the other leaves its last bytes uncopied. Only threads whose
 * calls differ show it: the threads situation draws each worker's call
 * from the case space (docs/contract.md, C14). memcpy_thread_blocks is its
 * twin. */
#include <sched.h>
#include <stddef.h>

#ifndef BLOCKS_NAME /* the twin includes this file with its own */
#define BLOCKS_NAME    mg_generic_bad_memcpy_static_blocks
#define BLOCKS_STORAGE static
#endif

void *BLOCKS_NAME(void *d, const void *s, size_t n);

#define BLOCK	  16
#define SLOW_FROM 1024
#define SLOW_TO	  16384

BLOCKS_STORAGE size_t tail;
/* The tail is memory the other calls may see, not a register. */
#define BARRIER() __asm__ volatile("" ::: "memory")

void *BLOCKS_NAME(void *d, const void *s, size_t n)
{
	unsigned char *dst = d;
	const unsigned char *src = s;
	size_t saved = tail, body = n / BLOCK * BLOCK;

	tail = n % BLOCK;
	BARRIER();
	for (size_t i = 0; i < body; i++)
		dst[i] = src[i];
	if (n >= SLOW_FROM && n <= SLOW_TO)
		sched_yield();
	BARRIER();
	for (size_t i = n - tail; i < n; i++)
		dst[i] = src[i];
	tail = saved;
	return d;
}
