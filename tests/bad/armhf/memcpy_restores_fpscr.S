/* The twin of bad_memcpy_changes_fpscr: the same round-toward-zero copy,
 * then the FPSCR it found (kept in s0) written back before the return, as
 * AAPCS 5.1.2.1 asks of a routine that changes the rounding mode. Must
 * pass, whatever mode the caller runs in. */
#define FPSCR_COPY mg_armhf_memcpy_restores_fpscr
#define RESTORE_FPSCR                                                                              \
	vmov	r12, s0;                                                                           \
	vmsr	fpscr, r12
#include "bad_memcpy_changes_fpscr.S"
