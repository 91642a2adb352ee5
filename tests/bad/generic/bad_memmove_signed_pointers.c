/* Picks memmove's direction by comparing the pointers as signed numbers
 * (glibc's i386 __memmove_sse2_unaligned before BZ 22644, CVE-2017-18269):
 * right unless src and dst lie on both sides of 0x80000000, where the
 * overlapping copy goes the wrong way. Only span-2gib finds it on i386. */
#include <stddef.h>
#include <stdint.h>

void *mg_generic_bad_memmove_signed_pointers(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;

	if ((intptr_t)dst <= (intptr_t)src) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		for (size_t i = n; i > 0; i--)
			d[i - 1] = s[i - 1];
	}
	return dst;
}
