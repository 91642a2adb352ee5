/* RISC-V machine context: whether a fault was a read or a write.
 *
 * Linux's signal frame for riscv carries no cause (scause) or fault kind,
 * only the registers, so the faulting instruction itself is decoded, at
 * the pc the frame holds: its major opcode says load or store, for the
 * scalar and FP forms, the vector unit-stride, strided and indexed forms
 * (which share LOAD-FP and STORE-FP) and the compressed ones. Anything
 * else (atomics, which do both) stays unknown, and the harness reports
 * it as a crash rather than guess.
 *
 * An illegal vector instruction on a CPU with V is read too: the
 * trampoline enters every call with vtype.vill set (nothing is promised
 * of vtype at entry: docs/contract.md, R8), so it is one the routine ran
 * before any vsetvl of its own. */
#include "fault.h"

#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <ucontext.h>

#define OPCODE_LOAD	0x03u
#define OPCODE_LOAD_FP	0x07u /* flw/fld and the vector loads */
#define OPCODE_STORE	0x23u
#define OPCODE_STORE_FP 0x27u /* fsw/fsd and the vector stores */

static enum mg_access access_of(int store)
{
	return store ? MG_ACCESS_WRITE : MG_ACCESS_READ;
}

/* A 32-bit instruction, by its major opcode (bits 6:0). */
static enum mg_access decode_32(uint32_t insn)
{
	switch (insn & 0x7fu) {
	case OPCODE_LOAD:
	case OPCODE_LOAD_FP: return MG_ACCESS_READ;
	case OPCODE_STORE:
	case OPCODE_STORE_FP: return MG_ACCESS_WRITE;
	default: return MG_ACCESS_UNKNOWN;
	}
}

#define OPCODE_OP_V   0x57u
#define FUNCT3_OPCFG  7u /* vsetvli, vsetivli, vsetvl: they set vtype */
#define HWCAP_V	      (1ul << ('V' - 'A'))

/* Whether a 32-bit instruction is one of V's that vtype.vill makes
 * illegal: OP-V but the vset* forms, and the vector loads and stores,
 * whose width field (bits 14:12) is 0, 5, 6 or 7 where the scalar FP
 * ones use 1 to 4. */
static int needs_vtype(uint32_t insn)
{
	unsigned funct3 = (insn >> 12) & 7u;

	switch (insn & 0x7fu) {
	case OPCODE_OP_V: return funct3 != FUNCT3_OPCFG;
	case OPCODE_LOAD_FP:
	case OPCODE_STORE_FP: return funct3 == 0 || funct3 >= 5;
	default: return 0;
	}
}

static unsigned long hwcap;

/* Read before any call (getauxval is no async-signal-safe function). */
__attribute__((constructor)) static void read_hwcap(void)
{
	hwcap = getauxval(AT_HWCAP);
}

/* What an illegal instruction at pc was, where it is a vector one. */
static const char *illegal_reading(const void *pc)
{
	const volatile uint16_t *at = pc;
	uint32_t insn;

	if ((at[0] & 3u) != 3u)
		return NULL;
	insn = at[0] | (uint32_t)at[1] << 16;
	if (!(hwcap & HWCAP_V))
		return needs_vtype(insn) || ((insn & 0x7fu) == OPCODE_OP_V)
			       ? " (a vector instruction, on a CPU without V: a routine that uses "
				 "V requires it, --requires v)"
			       : NULL;
	return needs_vtype(insn) ? " (a vector instruction with vtype.vill set: the call enters "
				   "with vtype invalid, as nothing is promised of vtype at entry, "
				   "and this ran before any vsetvl)"
				 : NULL;
}

/* A compressed instruction, by quadrant (bits 1:0) and funct3 (15:13):
 * quadrant 0 has c.fld, c.lw, c.ld (001, 010, 011) and c.fsd, c.sw, c.sd
 * (101, 110, 111); quadrant 2 the same through sp (c.fldsp ... c.sdsp). */
static enum mg_access decode_16(uint16_t insn)
{
	unsigned quadrant = insn & 3u, funct3 = insn >> 13;

	if ((quadrant != 0 && quadrant != 2) || (funct3 & 3u) == 0)
		return MG_ACCESS_UNKNOWN;
	return access_of((funct3 & 4u) != 0);
}

void mg_fault_decode_context(const void *ucontext, struct mg_fault *f)
{
	const ucontext_t *uc = ucontext;
	const volatile uint16_t *at;
	uint16_t low;

	f->pc = (void *)(uintptr_t)uc->uc_mcontext.__gregs[REG_PC];
	f->general_protection = 0;
	f->access = MG_ACCESS_UNKNOWN;
	f->reading = NULL;
	if (f->signo == SIGILL) {
		f->reading = illegal_reading(f->pc);
		return;
	}
	/* A jump into unmapped memory faults on the fetch, at pc: there is no
	 * instruction to read there. */
	if ((f->signo != SIGSEGV && f->signo != SIGBUS) || f->addr == f->pc)
		return;
	/* Instructions are 2-byte aligned (C): read them by halves. */
	at = (const volatile uint16_t *)f->pc;
	low = at[0];
	if ((low & 3u) != 3u)
		f->access = decode_16(low);
	else
		f->access = decode_32(low | (uint32_t)at[1] << 16);
}
