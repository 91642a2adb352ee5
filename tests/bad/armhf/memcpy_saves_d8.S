/* The twin of bad_memcpy_clobbers_d8: the same copy through d8, with the
 * caller's d8 pushed first and popped before the return (AAPCS 5.1.2.1:
 * d8-d15 are callee-saved, and saving them is how a routine may use them).
 * Must pass. */
#define D8_COPY mg_armhf_memcpy_saves_d8
#define SAVE_D8                                                                                    \
	vpush	{d8};                                                                              \
	.cfi_adjust_cfa_offset 8;                                                                  \
	.cfi_rel_offset d8, 0
#define RESTORE_D8                                                                                 \
	vpop	{d8};                                                                              \
	.cfi_adjust_cfa_offset -8;                                                                 \
	.cfi_restore d8
#include "bad_memcpy_clobbers_d8.S"
