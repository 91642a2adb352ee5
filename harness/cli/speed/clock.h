/* memgate speed's clock: the time-stamp counter on x86, clock_gettime
 * elsewhere, and what a measurement costs by itself (clock.c). */
#ifndef MG_SPEED_CLOCK_H
#define MG_SPEED_CLOCK_H

#include <stdint.h>
#include <time.h>

extern double mg_speed_timer_floor;  /* what an empty measurement reads, subtracted */
extern double mg_speed_ticks_per_ns; /* 1 where the clock is clock_gettime itself */

void mg_speed_calibrate_clock(void);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(MG_SPEED_NO_TSC)
#define CLOCK_IS_TSC   1
#define CLOCK_UNIT     "cycles"
#define COLD_CALLS_MAX 16
#define DEFAULT_ROUNDS 101

/* mfence: the stores and flushes before it are complete, so a cold call
 * starts cold and a call's own stores count against it. lfence: rdtsc waits
 * for everything before it, and nothing after starts before it reads. */
static inline uint64_t stamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("mfence\n\tlfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
/* Elsewhere, for now: clock_gettime, and one cold call per round, as the
 * eviction (evict.c) costs milliseconds. (MG_SPEED_NO_TSC builds this on
 * x86.) */
#define CLOCK_IS_TSC   0
#define CLOCK_UNIT     "ns"
#define COLD_CALLS_MAX 1
#define DEFAULT_ROUNDS 11

static inline uint64_t stamp(void)
{
	return now_ns();
}
#endif

#endif
