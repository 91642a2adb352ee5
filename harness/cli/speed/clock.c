/* memgate speed's clock calibration: what the two stamps around a
 * measurement cost, and how many ticks the clock counts per nanosecond. */
#include "clock.h"

#include <stdlib.h>

#define CALIBRATE_NS 20000000.0

double mg_speed_timer_floor;
double mg_speed_ticks_per_ns;

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The cost of the two stamps around a measurement, subtracted from each.
 * A mean, not a minimum: with a coarse counter the minimum is a step too
 * low. The slowest tenth (interrupts) is left out. */
static double measure_timer_floor(void)
{
	enum { SAMPLES = 1000, KEPT = SAMPLES * 9 / 10 };
	uint64_t d[SAMPLES];
	double sum = 0;

	for (int i = 0; i < SAMPLES; i++) {
		uint64_t t0 = stamp();
		d[i] = stamp() - t0;
	}
	qsort(d, SAMPLES, sizeof d[0], compare_u64);
	for (int i = 0; i < KEPT; i++)
		sum += (double)d[i];
	return sum / KEPT;
}

void mg_speed_calibrate_clock(void)
{
	uint64_t t0 = stamp(), n0 = now_ns(), n1;

	mg_speed_timer_floor = measure_timer_floor();
	do
		n1 = now_ns();
	while ((double)(n1 - n0) < CALIBRATE_NS);
	mg_speed_ticks_per_ns = (double)(stamp() - t0) / (double)(n1 - n0);
	if (!CLOCK_IS_TSC)
		mg_speed_ticks_per_ns = 1;
}
