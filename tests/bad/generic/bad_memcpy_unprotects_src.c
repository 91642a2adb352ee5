/* Tampers with the harness: makes the pages of its source writable (the
 * source view is a shared mapping of the harness's own memory) and writes
 * one wrong byte to both src[0] and dst[0], so that a reference that copied
 * the source after the call would agree with it. mprotect's failure is
 * ignored: then the write to the source faults. */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void *mg_generic_bad_memcpy_unprotects_src(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	volatile unsigned char *s = (volatile unsigned char *)(uintptr_t)src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	if (n) {
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t lo = (uintptr_t)src & ~(page - 1);
		uintptr_t hi = ((uintptr_t)src + n + page - 1) & ~(page - 1);
		unsigned char wrong = (unsigned char)(s[0] ^ 0x5a);

		(void)mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE);
		s[0] = wrong;
		d[0] = wrong;
	}
	return dst;
}
