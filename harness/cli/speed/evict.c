/* memgate speed's cold cache: before each cold call, what it touches goes
 * out of every cache level. */
#include "clock.h"
#include "speed.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if CLOCK_IS_TSC
static void flush(const unsigned char *p, size_t len)
{
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)(LINE - 1); a < (uintptr_t)p + len; a += LINE)
		__asm__ volatile("clflush %0" : : "m"(*(const volatile char *)a));
}

/* Out of every cache level, by address: this does not depend on the cache
 * sizes, which a VM may misreport (this one claims a 508 MiB L3). */
void mg_speed_make_cold(const unsigned char *src, const unsigned char *dst, size_t len)
{
	if (src)
		flush(src, len);
	flush(dst, len);
}
#else
#define EVICT_BYTES ((size_t)64 << 20)

/* Without a user-space cache flush, write over a region larger than most
 * last-level caches: slow, and only as cold as the region is large. */
void mg_speed_make_cold(const unsigned char *src, const unsigned char *dst, size_t len)
{
	static volatile unsigned char *evict;

	(void)src;
	(void)dst;
	(void)len;
	if (!evict) {
		evict = mmap(NULL, EVICT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		if (evict == MAP_FAILED) {
			fprintf(stderr, "memgate speed: cannot map the eviction region\n");
			exit(1);
		}
	}
	for (size_t i = 0; i < EVICT_BYTES; i += LINE)
		evict[i]++;
}
#endif
