/* A copy whose size check fails on one length: it calls glibc's
 * __chk_fail, as a _chk entry point does when the destination is too
 * small. The gate links the call to its stub (harness/engine/noreturn.h),
 * so reaching it is the finding "called __chk_fail", not a build refusal
 * and not the C library's abort. */
#include <stddef.h>

void __chk_fail(void) __attribute__((noreturn));

void *calls_chk_fail(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n == 77)
		__chk_fail();
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}
