/* The twin of bad_memcpy_frinti_blocks: the same count, rounded with
 * frintn (to nearest, ties to even, whatever FPCR's rounding mode): must
 * pass in every rounding mode the caller may enter with. */
#define BLOCKS_COPY mg_aarch64_memcpy_frintn_blocks
#define ROUND	    frintn
#include "bad_memcpy_frinti_blocks.S"
