/* A fuzz target that does nothing: the ceiling `make bench-fuzz` measures
 * the real targets' exec/s against, built with the same compiler and flags. */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
