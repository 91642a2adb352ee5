/* A page-split path that drops a byte: a short copy whose source crosses a
 * page boundary is done in two parts, and the second starts one byte late.
 * (Routines split there to keep a wide load from reaching into the next
 * page.) Buffers at a guard page never cross one: only a straddle finds it. */
#include <stddef.h>
#include <stdint.h>

#define PAGE 4096u

void *mg_generic_bad_memcpy_page_split(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;
	size_t to_page = PAGE - ((uintptr_t)src & (PAGE - 1));
	size_t i = 0;

	if (n <= 64 && to_page < n) {
		for (; i < to_page; i++)
			d[i] = s[i];
		i++; /* the bug: the first byte of the second page is skipped */
	}
	for (; i < n; i++)
		d[i] = s[i];
	return dst;
}
