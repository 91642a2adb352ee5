/* AArch64 machine context: whether a fault was a read or a write.
 *
 * Linux puts the fault's syndrome (ESR) in an esr_context record of the
 * signal frame; for a data abort its WnR bit answers the question. qemu-user
 * writes no such record, so without one the faulting instruction itself is
 * decoded: every load/store class has a bit that says which it is, though
 * not always the same bit. Anything else stays unknown, and the harness
 * reports it as a crash rather than guess. */
#include "fault.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/* The signal frame's records (the kernel's asm/sigcontext.h, whose struct
 * sigcontext clashes with glibc's, so the few values are spelled here). */
#define RECORD_END	 0u
#define RECORD_ESR	 0x45535201u
#define ESR_EC(esr)	 (((esr) >> 26) & 0x3fu)
#define ESR_EC_DABT_EL0	 0x24u /* data abort from a lower exception level */
#define ESR_EC_DABT_SAME 0x25u
#define ESR_WNR		 (1u << 6)
#define DC_ZVA_MASK	 0xffffffe0u /* dc zva, Xt: any Xt */
#define DC_ZVA		 0xd50b7420u

struct record_head {
	uint32_t magic, size;
};

/* The ESR from the frame's records, or 0 if there is none. */
static uint64_t frame_esr(const mcontext_t *mc)
{
	const unsigned char *base = mc->__reserved;
	size_t at = 0;
	struct record_head head;
	uint64_t esr;

	while (at + sizeof head <= sizeof mc->__reserved) {
		memcpy(&head, base + at, sizeof head);
		if (head.magic == RECORD_END || head.size < sizeof head)
			return 0;
		if (head.magic == RECORD_ESR && head.size >= sizeof head + sizeof esr &&
		    at + sizeof head + sizeof esr <= sizeof mc->__reserved) {
			memcpy(&esr, base + at + sizeof head, sizeof esr);
			return esr;
		}
		at += head.size;
	}
	return 0;
}

static enum mg_access access_of(int store)
{
	return store ? MG_ACCESS_WRITE : MG_ACCESS_READ;
}

#define BIT(insn, n)	      (((insn) >> (n)) & 1u)
#define FIELD(insn, lo, bits) (((insn) >> (lo)) & ((1u << (bits)) - 1u))

/* Loads and stores, by the ARM ARM's encoding classes, and dc zva, which
 * stores a whole block of zeros. In most of the classes bit 22 is L (1: load). Not in the
 * single-register general-purpose forms, whose opc (bits 23:22) is 00 for a store and 01, 10 or 11
 * for the plain and sign-extending loads (LDRSB/LDRSH/LDRSW have bit 22 clear) and the prefetch;
 * the SIMD&FP forms keep L in bit 22 even for the Q registers (opc 1x). */
static enum mg_access decode_load_store(uint32_t insn)
{
	unsigned vector = BIT(insn, 26);

	if ((insn & DC_ZVA_MASK) == DC_ZVA) /* zeroes a block: a store */
		return MG_ACCESS_WRITE;
	/* SVE's loads and stores: bit 31 set and bits 28:25 0010; bits 31:29
	 * are 111 for the stores, 100-110 for the loads (contiguous, gather,
	 * ldr of a z or p register) and prefetches. */
	if (BIT(insn, 31) && FIELD(insn, 25, 4) == 2)
		return access_of(FIELD(insn, 29, 3) == 7);
	if ((insn & 0x0a000000u) != 0x08000000u) /* not in the loads and stores */
		return MG_ACCESS_UNKNOWN;
	if (FIELD(insn, 27, 3) == 5) /* ldp/stp/ldnp/stnp/ldpsw/stgp, any index mode */
		return access_of(!BIT(insn, 22));
	if (FIELD(insn, 27, 3) == 7) { /* ldr/str and kin, one register */
		int atomic = !BIT(insn, 24) && BIT(insn, 21) && FIELD(insn, 10, 2) == 0;

		if (atomic) /* ldadd, swp, ...: both */
			return MG_ACCESS_UNKNOWN;
		if (vector)
			return access_of(!BIT(insn, 22));
		return access_of(FIELD(insn, 22, 2) == 0);
	}
	if (FIELD(insn, 27, 3) == 3 && FIELD(insn, 24, 2) == 0) /* load literal */
		return MG_ACCESS_READ;
	if (FIELD(insn, 24, 6) == 0x08 && !BIT(insn, 21)) /* ldxr/stxr/ldar/stlr */
		return access_of(!BIT(insn, 22));
	if (!BIT(insn, 31) && FIELD(insn, 25, 5) == 0x06) /* ld1-ld4/st1-st4, ld1r... */
		return access_of(!BIT(insn, 22));
	return MG_ACCESS_UNKNOWN;
}

void mg_fault_decode_context(const void *ucontext, struct mg_fault *f)
{
	const ucontext_t *uc = ucontext;
	const mcontext_t *mc = &uc->uc_mcontext;
	uint64_t esr = frame_esr(mc);

	f->pc = (void *)(uintptr_t)mc->pc;
	f->general_protection = 0;
	f->access = MG_ACCESS_UNKNOWN;
	if (esr) {
		if (ESR_EC(esr) == ESR_EC_DABT_EL0 || ESR_EC(esr) == ESR_EC_DABT_SAME)
			f->access = access_of((esr & ESR_WNR) != 0);
		return;
	}
	/* A jump into unmapped memory faults on the fetch, at pc: there is no
	 * instruction to read there. */
	if ((f->signo != SIGSEGV && f->signo != SIGBUS) || f->addr == f->pc)
		return;
	f->access = decode_load_store(*(const volatile uint32_t *)f->pc);
}
