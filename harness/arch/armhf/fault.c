/* 32-bit Arm machine context: whether a fault was a read or a write.
 *
 * Linux puts the fault status register in the signal frame's error_code,
 * whose WnR bit answers the question, but qemu-user writes 0 there (and in
 * trap_no and fault_address), so the faulting instruction itself is
 * decoded, at the pc the frame holds, in the instruction set the CPSR's T
 * bit names: A32, or T32's 16- and 32-bit forms. Every load/store class
 * has a bit that says which it is, though not always the same bit. The FSR
 * is read only where the decoder has no answer (SWP, which does both,
 * says there which half faulted). Anything else stays unknown, and the
 * harness reports it as a crash rather than guess.
 *
 * Section numbers are those of the ARMv7-A/R Architecture Reference
 * Manual, DDI 0406C.
 *
 * An illegal instruction is read too: an Advanced SIMD one on a CPU
 * without NEON, or a VFP one on d16-d31 on a CPU with only d0-d15. */
#include "abi.h"
#include "fault.h"

#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h> /* HWCAP_ARM_NEON, HWCAP_ARM_VFPD32: asm/hwcap.h's bits 12, 19 */
#include <ucontext.h>

#define BIT(insn, n)	      (((insn) >> (n)) & 1u)
#define FIELD(insn, lo, bits) (((insn) >> (lo)) & ((1u << (bits)) - 1u))

#define CPSR_T	   (1ul << 5)  /* Thumb state */
#define TRAP_ABORT 14ul	       /* trap_no of a data or prefetch abort (arch/arm/mm/fault.c) */
#define FSR_WNR	   (1ul << 11) /* write, not read */
#define FSR_CM	   (1ul << 13) /* a cache maintenance operation, which Linux counts as a read */
#define FSR_LNX_PF (1ul << 31) /* Linux's mark of a prefetch abort */

static enum mg_access access_of(int store)
{
	return store ? MG_ACCESS_WRITE : MG_ACCESS_READ;
}

/* A5.2.8, extra load/store: bits 7:4 1011, 1101, 1111; L (bit 20) set for
 * LDRH, LDRSB, LDRSH, and, clear, op2 (6:5) 01 STRH, 10 LDRD, 11 STRD.
 * A5.2.10, synchronization primitives (27:24 0001, 7:4 1001): bit 23 set
 * for LDREX/STREX of any size (and v8's LDA/STL kin), L the load; clear
 * for SWP/SWPB, which read and write. */
static enum mg_access decode_a32_extra(uint32_t insn)
{
	if ((insn & 0x0f0000f0u) == 0x01000090u)
		return BIT(insn, 23) ? access_of(!BIT(insn, 20)) : MG_ACCESS_UNKNOWN;
	if (!BIT(insn, 7) || !BIT(insn, 4) || FIELD(insn, 5, 2) == 0)
		return MG_ACCESS_UNKNOWN; /* data-processing, multiplies */
	if (BIT(insn, 20))
		return MG_ACCESS_READ;
	return access_of(FIELD(insn, 5, 2) != 2);
}

/* A5.6 coprocessor instructions, bits 27:25 110: LDC/STC, of which A7.6's
 * VLDR, VSTR, VLDM, VSTM, VPUSH, VPOP are cp10/cp11's, L in bit 20; but
 * where P, U and W (bits 24, 23, 21) are all clear: MCRR/MRRC (A7.9's
 * VMOV of two core registers) or undefined. */
static enum mg_access decode_coproc(uint32_t insn)
{
	if ((insn & 0x01a00000u) == 0)
		return MG_ACCESS_UNKNOWN;
	return access_of(!BIT(insn, 20));
}

/* An A32 instruction, by A5.1's cond (31:28) and op1 (27:25). */
static enum mg_access decode_a32(uint32_t insn)
{
	/* A5.7, the unconditional space: A7.7's element and structure loads
	 * and stores (VLD1-4/VST1-4: 0xf4, bit 20 clear), L in bit 21. The
	 * rest (PLD and PLI among them, which never fault) stays unknown. */
	if (FIELD(insn, 28, 4) == 0xf) {
		if ((insn & 0xff100000u) == 0xf4000000u)
			return access_of(!BIT(insn, 21));
		return MG_ACCESS_UNKNOWN;
	}
	switch (FIELD(insn, 25, 3)) {
	case 0: return decode_a32_extra(insn);
	case 2: return access_of(!BIT(insn, 20)); /* A5.3 LDR/STR(B), immediate */
	case 3: /* A5.3, register offset; bit 4 set: A5.4, media */
		return BIT(insn, 4) ? MG_ACCESS_UNKNOWN : access_of(!BIT(insn, 20));
	case 4: return access_of(!BIT(insn, 20)); /* A5.5 LDM/STM, PUSH/POP */
	case 6: return decode_coproc(insn);
	default: return MG_ACCESS_UNKNOWN;
	}
}

/* A 16-bit T32 instruction, A6.2: A6.2.4's load/store single data item
 * and LDR (literal), LDM/STM, and A6.2.5's PUSH and POP. */
static enum mg_access decode_t16(uint16_t insn)
{
	if ((insn & 0xf800u) == 0x4800u) /* LDR (literal) */
		return MG_ACCESS_READ;
	/* Register offset: opB (11:9) STR, STRH, STRB, then the loads. */
	if ((insn & 0xf000u) == 0x5000u)
		return access_of(FIELD(insn, 9, 3) < 3);
	/* Immediate offset (0110 word, 0111 byte, 1000 halfword), SP-relative
	 * (1001), STM/LDM (1100): L in bit 11. */
	if ((insn & 0xe000u) == 0x6000u || (insn & 0xe000u) == 0x8000u ||
	    (insn & 0xf000u) == 0xc000u)
		return access_of(!BIT(insn, 11));
	if ((insn & 0xfe00u) == 0xb400u) /* PUSH */
		return MG_ACCESS_WRITE;
	if ((insn & 0xfe00u) == 0xbc00u) /* POP */
		return MG_ACCESS_READ;
	return MG_ACCESS_UNKNOWN;
}

/* Whether a first halfword (bits 15:11 11101, 11110, 11111) starts a
 * 32-bit T32 instruction (A6.1). */
static int is_t32(uint16_t first)
{
	return (first >> 11) >= 0x1du;
}

/* A T32 instruction of the coprocessor, Advanced SIMD and floating-point
 * space (A6.3.18) as the A32 one it mirrors: A7.4 to A7.9 give both, the
 * same bits 27:0 under another prefix (111U 1111 for 1111 001U, 1111 1001
 * for 1111 0100, 1110 for the VFP ones' cond). 0, an A32 AND that reads as
 * neither, if it is not one; LDC2/STC2 (T set) are none of A32's either. */
static uint32_t t32_as_a32(uint32_t insn)
{
	if ((insn & 0xef000000u) == 0xef000000u) /* Advanced SIMD data-processing */
		return 0xf2000000u | BIT(insn, 28) << 24 | (insn & 0x00ffffffu);
	if ((insn & 0xff100000u) == 0xf9000000u) /* element and structure loads and stores */
		return 0xf4000000u | (insn & 0x00ffffffu);
	if ((insn & 0xfc000000u) == 0xec000000u) /* VFP's, and the transfers, with cond AL */
		return insn;
	return 0;
}

/* A6.3.7 to A6.3.10, load/store single data item (1111 100x): bit 20
 * clear, the stores; set, the loads, but those of a byte or halfword
 * into the pc, which are PLD, PLDW and PLI. */
static enum mg_access decode_t32_single(uint32_t insn)
{
	if (!BIT(insn, 20))
		return MG_ACCESS_WRITE;
	if (FIELD(insn, 21, 2) == 3) /* undefined */
		return MG_ACCESS_UNKNOWN;
	if (FIELD(insn, 21, 2) < 2 && FIELD(insn, 12, 4) == 15)
		return MG_ACCESS_UNKNOWN;
	return MG_ACCESS_READ;
}

/* A 32-bit T32 instruction, first halfword in bits 31:16, by A6.3's
 * classes. 1110 100x: A6.3.5's LDM/STM (PUSH/POP) and A6.3.6's LDRD/STRD,
 * LDREX/STREX of every size and TBB/TBH (which load): L in bit 20. */
static enum mg_access decode_t32(uint32_t insn)
{
	uint32_t a32 = t32_as_a32(insn);

	if (a32)
		return decode_a32(a32);
	if ((insn & 0xfe000000u) == 0xe8000000u)
		return access_of(!BIT(insn, 20));
	if ((insn & 0xfe000000u) == 0xf8000000u)
		return decode_t32_single(insn);
	return MG_ACCESS_UNKNOWN;
}

/* A7.8, a transfer between a core register and a scalar (VMOV) or all of
 * a vector's lanes (VDUP): cond 1110, bits 11:8 1011, bit 4 set. */
static int is_scalar_transfer(uint32_t insn)
{
	return FIELD(insn, 28, 4) != 0xf && (insn & 0x0f000f10u) == 0x0e000b10u;
}

/* Whether an A32 instruction is Advanced SIMD's alone: A7.4's
 * data-processing, A7.7's element and structure loads and stores, and of
 * A7.8's transfers VDUP (bit 23) and the VMOVs of 8 or 16 bits (bits 23,
 * 22, 6:5 not all clear); a 32-bit VMOV Dd[x] is VFP's too. */
static int is_neon(uint32_t insn)
{
	if ((insn & 0xfe000000u) == 0xf2000000u || (insn & 0xff100000u) == 0xf4000000u)
		return 1;
	return is_scalar_transfer(insn) && (insn & 0x00c00060u) != 0;
}

/* Which of D (bit 22), N (7) and M (5), the top bits of the register
 * numbers, name a double register in A7.5's VFP data-processing (sz, bit
 * 8, set: double). opc1 (23:20) 1x11 is the "other" group, of one or two
 * registers, where some VCVTs have one of each size. */
static uint32_t vfp_double_fields(uint32_t insn)
{
	const uint32_t d = 1u << 22, n = 1u << 7, m = 1u << 5;
	unsigned sz = BIT(insn, 8);

	if ((FIELD(insn, 20, 4) & 0xbu) != 0xbu) /* VMLA ... VFMS: three of one size */
		return sz ? d | n | m : 0;
	if (!BIT(insn, 6)) /* VMOV (immediate) */
		return sz ? d : 0;
	switch (FIELD(insn, 16, 4)) {
	case 0x7: /* VCVT between double and single (opc3 11) has the other size at d */
		if (FIELD(insn, 6, 2) == 3)
			return sz ? m : d;
		return sz ? d | m : 0;
	case 0x2: /* VCVTB/VCVTT from half, VCVT from integer, to and from fixed point */
	case 0x8:
	case 0xa:
	case 0xb:
	case 0xe:
	case 0xf: return sz ? d : 0;
	case 0x3: /* VCVTB/VCVTT to half, VJCVT, VCVT(R) to integer */
	case 0x9:
	case 0xc:
	case 0xd: return sz ? m : 0;
	default: return sz ? d | m : 0; /* VMOV, VABS, VNEG, VSQRT, VCMP(E), VRINT */
	}
}

/* Whether an A32 VFP instruction (cp10/cp11, bits 11:9 101) names one of
 * d16-d31: A7.6's loads and stores from D:Vd (bit 22, 15:12), one
 * register for VLDR/VSTR (P set, W clear), imm8 / 2 for the multiples;
 * A7.9's VMOV of a double from M:Vm (5, 3:0); A7.8's of a scalar, D:Vd or
 * N:Vn (bit 7); A7.5's data-processing. */
static int vfp_high_d(uint32_t insn)
{
	unsigned first, count;

	if (FIELD(insn, 28, 4) == 0xf || FIELD(insn, 9, 3) != 5)
		return 0;
	if (FIELD(insn, 25, 3) == 6) {
		if (!BIT(insn, 8)) /* single registers */
			return 0;
		if (FIELD(insn, 21, 7) == 0x62u)
			return BIT(insn, 5);
		if ((insn & 0x01a00000u) == 0)
			return 0;
		first = BIT(insn, 22) << 4 | FIELD(insn, 12, 4);
		count = BIT(insn, 24) && !BIT(insn, 21) ? 1 : FIELD(insn, 1, 7);
		return first >= 16 || first + count > 16;
	}
	if (FIELD(insn, 24, 4) != 0xe)
		return 0;
	if (BIT(insn, 4))
		return is_scalar_transfer(insn) && BIT(insn, 7);
	return (insn & vfp_double_fields(insn)) != 0;
}

static unsigned long hwcap;

/* Read before any call (getauxval is no async-signal-safe function). */
__attribute__((constructor)) static void read_hwcap(void)
{
	hwcap = getauxval(AT_HWCAP);
}

/* What an illegal instruction was, in its A32 form, where it needs what
 * the CPU lacks. NEON's reading comes first: NEON implies d16-d31, so a
 * NEON instruction on them, on a CPU with neither, wants NEON. */
static const char *illegal_reading(uint32_t insn)
{
	if (!(hwcap & HWCAP_ARM_NEON) && is_neon(insn))
		return " (an Advanced SIMD instruction, on a CPU without NEON: a routine that uses "
		       "NEON requires it, --requires neon)";
	if (!(hwcap & HWCAP_ARM_VFPD32) && vfp_high_d(insn))
		return " (a VFP instruction on d16-d31, on a CPU with only 16 double registers "
		       "(VFPv3-D16): --requires vfpd32)";
	return NULL;
}

/* The frame's FSR where it is this fault's: Linux's data abort sets
 * trap_no, error_code and fault_address together, and a signal sent
 * otherwise (an alignment fault's, say) leaves them from an earlier one.
 * 0 under qemu-user, which writes 0 to all three. */
static unsigned long frame_fsr(const mcontext_t *mc, const void *addr)
{
	if (mc->trap_no != TRAP_ABORT || mc->fault_address != (uintptr_t)addr ||
	    (mc->error_code & FSR_LNX_PF))
		return 0;
	return mc->error_code;
}

void mg_fault_decode_context(const void *ucontext, struct mg_fault *f)
{
	const ucontext_t *uc = ucontext;
	const mcontext_t *mc = &uc->uc_mcontext;
	int thumb = (mc->arm_cpsr & CPSR_T) != 0;
	uintptr_t pc = mc->arm_pc & ~(uintptr_t)thumb; /* a Thumb address: its halfword */
	const volatile uint16_t *half = (const volatile uint16_t *)pc;
	unsigned long fsr;
	uint16_t first;

	f->pc = (void *)pc;
	f->general_protection = 0;
	f->access = MG_ACCESS_UNKNOWN;
	f->reading = NULL;
	if (f->signo == SIGILL) {
		if (thumb && pc == (uintptr_t)mg_abi_thumb_return)
			f->reading = " (the routine returned to its ARM caller in Thumb state: a "
				     "return must interwork, bx lr or pop {..., pc}, and Thumb's "
				     "mov pc, lr does not; AAPCS 5.6)";
		else if (!thumb)
			f->reading = illegal_reading(*(const volatile uint32_t *)pc);
		else if (is_t32(half[0]))
			f->reading = illegal_reading(t32_as_a32((uint32_t)half[0] << 16 | half[1]));
		return;
	}
	/* A jump into unmapped memory faults on the fetch, at pc: there is no
	 * instruction to read there. */
	if ((f->signo != SIGSEGV && f->signo != SIGBUS) || f->addr == f->pc)
		return;
	if (!thumb) {
		f->access = decode_a32(*(const volatile uint32_t *)pc);
	} else {
		/* Thumb code is 2-byte aligned: read it by halves, the first at
		 * the lower address. A 32-bit one may straddle into an unmapped
		 * page: its second half's fetch faults at pc + 2. */
		first = half[0];
		if (!is_t32(first))
			f->access = decode_t16(first);
		else if ((uintptr_t)f->addr != pc + 2)
			f->access = decode_t32((uint32_t)first << 16 | half[1]);
	}
	fsr = frame_fsr(mc, f->addr);
	if (f->access == MG_ACCESS_UNKNOWN && fsr)
		f->access = access_of((fsr & FSR_WNR) && !(fsr & FSR_CM));
	if (f->signo == SIGBUS && f->code == BUS_ADRALN)
		f->reading = " (alignment fault: LDM, LDRD, VLDR, LDREX and kin need word "
			     "alignment, a VLDn with an alignment hint its size; ARM ARM A3.2.1)";
}
