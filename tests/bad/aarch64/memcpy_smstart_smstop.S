/* The twin of bad_memcpy_leaves_streaming: the same copy in streaming
 * mode, left with smstop before it returns: must pass. */
#define SME_COPY mg_aarch64_memcpy_smstart_smstop
#define SMSTOP	 1
#include "bad_memcpy_leaves_streaming.S"
