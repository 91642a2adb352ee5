/* The oracle is checked too: each reference against the C library on random
 * cases (lengths, alignments, overlaps, fill values). */
#include "reference.h"
#include "rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AREA  8192
#define CASES 50000

static unsigned char want[AREA], got[AREA];
static struct mg_rng rng = {42};

static void fill_both(void)
{
	for (size_t i = 0; i < AREA; i += 8) {
		uint64_t r = mg_rng_next(&rng);
		memcpy(want + i, &r, 8);
	}
	memcpy(got, want, AREA);
}

static size_t random_len(void)
{
	/* Mostly short, sometimes up to a few KiB. */
	return mg_rng_below(&rng, 8) ? mg_rng_below(&rng, 300) : mg_rng_below(&rng, AREA / 2);
}

static int check(const char *op, size_t n, size_t off)
{
	if (memcmp(want, got, AREA) == 0)
		return 0;
	fprintf(stderr, "FAIL: ref_%s differs from the C library (len %zu, offset %zu)\n", op, n,
		off);
	return 1;
}

static int one_case(void)
{
	size_t n = random_len();
	size_t d = mg_rng_below(&rng, AREA - n + 1);
	size_t s = mg_rng_below(&rng, AREA - n + 1); /* may overlap d */
	int c = (int)mg_rng_next(&rng);

	fill_both();
	switch (mg_rng_below(&rng, 5)) {
	case 0:
		if ((d < s ? s - d : d - s) < n)
			return 0; /* memcpy's buffers may not overlap */
		memcpy(want + d, want + s, n);
		ref_memcpy(got + d, got + s, n);
		return check("memcpy", n, d);
	case 1:
		memmove(want + d, want + s, n);
		ref_memmove(got + d, got + s, n);
		return check("memmove", n, d);
	case 2:
		memset(want + d, c, n);
		ref_memset(got + d, c, n);
		return check("memset", n, d);
	case 3:
		memcpy(want, want + AREA / 2, REF_PAGE_SIZE);
		ref_copy_page(got, got + AREA / 2);
		return check("copy_page", REF_PAGE_SIZE, 0);
	default:
		memset(want + AREA / 2, 0, REF_PAGE_SIZE);
		ref_clear_page(got + AREA / 2);
		return check("clear_page", REF_PAGE_SIZE, AREA / 2);
	}
}

static int returns_dst(void)
{
	unsigned char a[8], b[8] = {0};
	return ref_memcpy(a, b, 8) == a && ref_memmove(a, b, 8) == a && ref_memset(a, 0, 8) == a;
}

int main(void)
{
	int failures = 0;
	int cases = 0;

	while (cases < CASES && failures < 5) {
		failures += one_case();
		cases++;
	}
	if (!returns_dst()) {
		fprintf(stderr, "FAIL: a reference does not return dst\n");
		failures++;
	}
	printf("references vs the C library: %d random cases, %d failures\n", cases, failures);
	return failures != 0;
}
