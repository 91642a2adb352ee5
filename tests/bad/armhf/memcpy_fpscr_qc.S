/* The twin of bad_memcpy_fpscr_qc: the same copy, with FPSCR.QC cleared
 * first (the caller's cumulative flags are not the routine's to keep, and
 * its control bits stay as they are). Must pass, in every floating-point
 * environment at entry. */
#define QC_COPY mg_armhf_memcpy_fpscr_qc
#define CLEAR_QC
#include "bad_memcpy_fpscr_qc.S"
