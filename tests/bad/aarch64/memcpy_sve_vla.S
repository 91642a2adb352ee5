/* The twin of bad_memcpy_sve_vl64: the same copy, stepping by the vector
 * length the thread has (cntb, incb): must pass at every length. */
#define SVE_COPY     mg_aarch64_memcpy_sve_vla
#define VL_AGNOSTIC  1
#include "bad_memcpy_sve_vl64.S"
