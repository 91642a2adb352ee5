/* aarch64 exception-table handler types, with the numbers and the data
 * field's layout of Linux 6.1 (arch/arm64/include/asm/asm-extable.h):
 * `short type, data`; for the ERR_ZERO types bits 0-4 of data are the
 * register that gets -EFAULT, bits 5-9 the one that gets 0, each a
 * general register number, 31 meaning none (wzr/xzr, which the kernel's
 * pt_regs_write_reg ignores). For the assembly (asmdefs.h's MG_EXTABLE)
 * and the emulation (extable.c). 6.1 has no EX_TYPE_FIXUP: its
 * assembly's entries are all UACCESS_ERR_ZERO. */
#ifndef MG_EXTABLE_TYPES_H
#define MG_EXTABLE_TYPES_H

#define MG_EX_TYPE_NONE			  0 /* the kernel BUG()s */
#define MG_EX_TYPE_BPF			  1 /* a BPF program's load: not a user copy's */
#define MG_EX_TYPE_UACCESS_ERR_ZERO	  2 /* err := -EFAULT, zero := 0, resume at the fixup */
#define MG_EX_TYPE_KACCESS_ERR_ZERO	  3 /* the same handler, for kernel accesses */
#define MG_EX_TYPE_LOAD_UNALIGNED_ZEROPAD 4 /* load_unaligned_zeropad(): not a user copy's */

#define MG_EX_DATA_REG_ERR(n)  ((n) << 0)
#define MG_EX_DATA_REG_ZERO(n) ((n) << 5)
#define MG_EX_REG_ZR	       31 /* no register: wzr/xzr */

/* The error the ERR_ZERO handler writes (-EFAULT). */
#define MG_EX_EFAULT 14

#endif
