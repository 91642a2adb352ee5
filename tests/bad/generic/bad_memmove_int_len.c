/* Picks memmove's direction with the length as a signed 32-bit int:
 * forward when dst - src >= (int32_t)n. Right below 2 GiB; from 2 GiB on
 * the length is negative, so an overlapping move with dst just above src
 * goes forward and copies bytes it has already overwritten. Only the
 * one-buffer cases of the huge check (an overlapping move of 2 GiB and
 * more, huge.c) find it: on i386 in every mode, on 64-bit with --huge=on.
 * It moves 4 bytes at a time (a word load before each word store keeps
 * either direction right at any distance): a byte loop over 2 GiB under
 * qemu-user nears the watchdog's limit on a loaded machine. */
#include <stddef.h>
#include <stdint.h>

static void forward(unsigned char *d, const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint32_t w;

	for (; i + 4 <= n; i += 4) {
		__builtin_memcpy(&w, s + i, 4);
		__builtin_memcpy(d + i, &w, 4);
	}
	for (; i < n; i++)
		d[i] = s[i];
}

static void backward(unsigned char *d, const unsigned char *s, size_t n)
{
	uint32_t w;

	for (; n >= 4; n -= 4) {
		__builtin_memcpy(&w, s + n - 4, 4);
		__builtin_memcpy(d + n - 4, &w, 4);
	}
	for (; n > 0; n--)
		d[n - 1] = s[n - 1];
}

void *mg_generic_bad_memmove_int_len(void *dst, const void *src, size_t n)
{
	intptr_t ahead = (intptr_t)((uintptr_t)dst - (uintptr_t)src);
	int32_t len = (int32_t)n; /* the bug */

	if ((uintptr_t)dst <= (uintptr_t)src || ahead >= (intptr_t)len)
		forward(dst, src, n);
	else
		backward(dst, src, n);
	return dst;
}
