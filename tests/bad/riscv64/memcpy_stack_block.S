/* bad_memcpy_stack_block with a frame that has room for the rounding: 64
 * bytes more below the saves, so the block stays below them whatever sp
 * mod 64 is at entry (must pass). */
#define STACK_COPY mg_riscv64_memcpy_stack_block
#define FRAME 192
#define SAVES 128
#include "bad_memcpy_stack_block.S"
