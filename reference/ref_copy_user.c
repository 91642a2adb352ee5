#include "reference.h"

/* The user copies' oracles run on plain memory, where nothing faults: they
 * copy (or clear) all n bytes and return 0, the count not copied. What a
 * routine must leave after a fault at byte k is this result's first n - ret
 * bytes, with the rest untouched (docs/usercopy.md). */
unsigned long ref_copy_from_user(void *to, const void *from, unsigned long n)
{
	unsigned char *d = to;
	const unsigned char *s = from;

	for (unsigned long i = 0; i < n; i++)
		d[i] = s[i];
	return 0;
}

unsigned long ref_copy_to_user(void *to, const void *from, unsigned long n)
{
	unsigned char *d = to;
	const unsigned char *s = from;

	for (unsigned long i = 0; i < n; i++)
		d[i] = s[i];
	return 0;
}

unsigned long ref_clear_user(void *to, unsigned long n)
{
	unsigned char *d = to;

	for (unsigned long i = 0; i < n; i++)
		d[i] = 0;
	return 0;
}
