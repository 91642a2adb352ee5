/* The x86 ABI records' register image for a convention of the routine's
 * own (engine/convention.h): the same fields, at the end of both records
 * (trampoline_x86_64.h, trampoline_i386.h), with the offsets each header
 * gives its assembly. */
#ifndef MG_ABI_X86_CONV_H
#define MG_ABI_X86_CONV_H

/* conv, conv_ret, regs_in: in; regs_out: every register after the call.
 * conv_may_change and conv_text are for the judge (C only): the registers
 * the convention lets the call change (a bit each), and its text, for the
 * diagnosis. */
#define MG_ABI_CONV_FIELDS                                                                         \
	uint32_t conv;                                                                             \
	uint32_t conv_ret;                                                                         \
	mg_abi_gpr_t regs_in[MG_ABI_GPR_COUNT];                                                    \
	mg_abi_gpr_t regs_out[MG_ABI_GPR_COUNT];                                                   \
	uint32_t conv_may_change;                                                                  \
	const char *conv_text;

#endif
