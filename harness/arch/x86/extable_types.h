/* x86 exception-table handler types, with the numbers and the data word's
 * layout of Linux 6.1 (arch/x86/include/asm/extable_fixup_types.h): bits
 * 0-7 the type, 8-11 a register (the kernel's pt_regs order: ax cx dx bx sp
 * bp si di r8-r15), 12-15 flags, 16-31 a signed immediate. For the
 * assembly (asmdefs.h's MG_EXTABLE) and the emulation (extable.c). */
#ifndef MG_EXTABLE_TYPES_H
#define MG_EXTABLE_TYPES_H

#define MG_EX_TYPE_DEFAULT   1	/* resume at the fixup */
#define MG_EX_TYPE_FAULT     2	/* ax := the trap number, then as DEFAULT */
#define MG_EX_TYPE_UACCESS   3	/* as DEFAULT (the kernel warns on a #GP) */
#define MG_EX_TYPE_COPY	     4	/* as FAULT (the kernel warns on a #GP) */
#define MG_EX_TYPE_IMM_REG   17 /* reg := (long)imm, then as DEFAULT */
#define MG_EX_TYPE_UCOPY_LEN 19 /* cx := reg + imm * cx, then as UACCESS */

#define MG_EX_DATA_REG(reg)   ((reg) << 8)
#define MG_EX_DATA_IMM(imm)   ((imm) << 16)
#define MG_EX_FLAG_CLEAR_AX   (1 << 12)
#define MG_EX_FLAG_CLEAR_DX   (2 << 12)

/* The kernel's register numbers, for MG_EX_DATA_REG. */
#define MG_EX_REG_AX 0
#define MG_EX_REG_CX 1
#define MG_EX_REG_DX 2
#define MG_EX_REG_BX 3
#define MG_EX_REG_SP 4
#define MG_EX_REG_BP 5
#define MG_EX_REG_SI 6
#define MG_EX_REG_DI 7
#define MG_EX_REG_R8 8

/* The page-fault trap number, which FAULT and COPY leave in ax. */
#define MG_X86_TRAP_PF 14

#endif
