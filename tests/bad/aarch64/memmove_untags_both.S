/* The twin of bad_memmove_untags_src: the same direction test on both
 * pointers with their top bytes cleared, the copy through the tagged
 * ones: must pass with any tags. */
#define TAG_MOVE   mg_aarch64_memmove_untags_both
#define UNTAG_BOTH 1
#include "bad_memmove_untags_src.S"
