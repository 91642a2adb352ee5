/* The twin of bad_memcpy_fpsr_qc: the same saturation test, after clearing
 * FPSR, whose flags are not preserved across a call (AAPCS64 6.1.2): must
 * pass whatever flags the caller enters with. */
#define QC_COPY	   mg_aarch64_memcpy_fpsr_qc
#define CLEAR_FPSR 1
#include "bad_memcpy_fpsr_qc.S"
