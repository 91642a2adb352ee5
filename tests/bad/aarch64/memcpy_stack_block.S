/* The twin of bad_memcpy_stack_block: the same block, sp rounded up to
 * 64, in a frame with 64 bytes more for the rounding, so the saved x19
 * and x20 lie above it at every alignment AAPCS64 allows at entry (must
 * pass). */
#define STACK_COPY mg_aarch64_memcpy_stack_block
#define FRAME	   192
#define SAVES	   128
#include "bad_memcpy_stack_block.S"
