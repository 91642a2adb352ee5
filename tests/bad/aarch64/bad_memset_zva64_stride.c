/* A memset that zeroes with dc zva, by DCZID_EL0's block size, but steps
 * two blocks per dc zva when the block is 64 bytes (as if it covered a
 * 128-byte pair of lines): every other block keeps its old bytes. Correct
 * under qemu's default CPU (512-byte blocks) and a64fx (256); only a model
 * with 64-byte blocks (cortex-a57, like most real cores) shows it. */
#include <stddef.h>
#include <stdint.h>

static size_t zva_block_bytes(void)
{
	uint64_t dczid;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
	return (dczid & 16) ? 0 : (size_t)4 << (dczid & 15);
}

void *mg_aarch64_bad_memset_zva64_stride(void *dst, int c, size_t n)
{
	unsigned char *d = dst, *end = d + n;
	size_t block = zva_block_bytes();
	size_t step = block == 64 ? 128 : block;

	if ((unsigned char)c == 0 && block && n >= 2 * step) {
		while ((uintptr_t)d & (block - 1))
			*d++ = 0;
		for (; (size_t)(end - d) >= step; d += step)
			__asm__ volatile("dc zva, %0" : : "r"(d) : "memory");
	}
	while (d < end)
		*d++ = (unsigned char)c;
	return dst;
}
