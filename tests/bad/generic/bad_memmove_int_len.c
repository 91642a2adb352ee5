/* Picks memmove's direction with the length as a signed 32-bit int:
 * forward when dst - src >= (int32_t)n. Right below 2 GiB; from 2 GiB on
 * the length is negative, so an overlapping move with dst just above src
 * goes forward and copies bytes it has already overwritten. Only the
 * one-buffer cases of the huge check (an overlapping move of 2 GiB and
 * more, huge.c) find it: on i386 in every mode, on 64-bit with --huge=on.
 * It moves 64-byte blocks, loading the whole block before storing it, which
 * keeps either direction right at any distance, and is fast: a byte or
 * word loop over 2 GiB at distance 1 (each load waiting on the store just
 * before it) nears the watchdog's limit on a loaded machine. */
#include <stddef.h>
#include <stdint.h>

#define BLOCK 64

static void move_block(unsigned char *d, const unsigned char *s)
{
	uint64_t w[BLOCK / 8];

	__builtin_memcpy(w, s, BLOCK);
	__builtin_memcpy(d, w, BLOCK);
}

static void forward(unsigned char *d, const unsigned char *s, size_t n)
{
	size_t i = 0;

	for (; i + BLOCK <= n; i += BLOCK)
		move_block(d + i, s + i);
	for (; i < n; i++)
		d[i] = s[i];
}

static void backward(unsigned char *d, const unsigned char *s, size_t n)
{
	for (; n % BLOCK; n--)
		d[n - 1] = s[n - 1];
	for (; n > 0; n -= BLOCK)
		move_block(d + n - BLOCK, s + n - BLOCK);
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
