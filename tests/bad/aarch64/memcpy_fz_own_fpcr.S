/* The twin of bad_memcpy_fz_zero_words: the same FP compare, with FZ
 * cleared around the loop and the caller's FPCR given back at the end (its
 * control bits are callee-saved, AAPCS64 6.1.2): must pass whatever FZ the
 * caller enters with. */
#define FZ_COPY	 mg_aarch64_memcpy_fz_own_fpcr
#define OWN_FPCR 1
#include "bad_memcpy_fz_zero_words.S"
