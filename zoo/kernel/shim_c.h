/* zoo/kernel/shim_c.h: the C half of the kernel shim (zoo/kernel/shim.h
 * includes it for C files), for the kernel C files memgate gates outside
 * their tree: 6.1's arch/x86/lib/usercopy_32.c, whose user copies are
 * inline assembly with exception-table entries. The gate gives the tree's
 * flags to the submission's files alone, its generated data files among
 * them, so this defines macros and types only, never an object.
 *
 * What it stands in for, and how (docs/usercopy.md, "i386's usercopy_32.c"):
 * - access_ok: every address is a user one here, so always true (the
 *   kernel's range check against TASK_SIZE is not the routine's contract);
 * - might_fault, the exports, __user: nothing; __read_mostly: nothing,
 *   or init_intel's movsl_mask (below);
 * - the SMAP brackets (stac, clac; __uaccess_begin_nospec's lfence aside):
 *   the 3-byte nop and the __memgate_uaccess record the assembly half
 *   writes, as an inline-assembly string;
 * - _ASM_EXTABLE_UA and _ASM_EXTABLE_TYPE_REG: real __ex_table entries in
 *   6.1's x86 format, the register of a TYPE_REG entry numbered at
 *   assembly time as the kernel's asm.h numbers it;
 * - static_cpu_has: ZOO_CPU, the CPU the alternative is gated for. */
#ifndef ZOO_KERNEL_SHIM_C_H
#define ZOO_KERNEL_SHIM_C_H

#ifndef ZOO_CPU
#define ZOO_CPU 0
#endif

#define __user
/* init_intel (arch/x86/kernel/cpu/intel.c) sets movsl_mask.mask = 7 at
 * boot on Intel's families 6 and 15 (CONFIG_X86_INTEL_USERCOPY), which
 * sends __copy_user_ll's copies of 64 bytes and more whose ends differ
 * mod 8 to __copy_user_intel. The CPU bit ZOO_INTEL_MOVSL stands for that
 * boot: the value is the variable's initializer, carried by the one
 * __read_mostly of usercopy_32.c, the variable's (on any other object it
 * does not compile, so it cannot initialise the wrong one). */
#define ZOO_INTEL_MOVSL (1 << 5)
#if (ZOO_CPU) & ZOO_INTEL_MOVSL
#define __read_mostly = {.mask = 7}
#else
#define __read_mostly
#endif
#define EXPORT_SYMBOL(name)
#define EXPORT_SYMBOL_GPL(name)
#define might_fault() do { } while (0)
#define access_ok(addr, size) ((void)(addr), (void)(size), 1)

#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)

#if defined(__x86_64__) || defined(__i386__)
/* The features usercopy_32.c tests (bits of ZOO_CPU; shim.h has the
 * assembly's). */
#define X86_FEATURE_XMM2 (1 << 4)
#define static_cpu_has(feature) (((ZOO_CPU) & (feature)) != 0)
/* arch/x86/include/asm/processor.h: the alignment at which i386's Intel
 * copies prefer movsl (usercopy_32.c defines the variable; boot sets it). */
struct movsl_mask {
	int mask;
};

#define ZOO_UACCESS_MARK_ASM(kind)                                                                 \
	"99771: .byte 0x0f, 0x1f, 0x00\n\t.pushsection \"__memgate_uaccess\", \"a\"\n\t"           \
	".balign 4\n\t.long 99771b - .\n\t.long " #kind "\n\t.popsection\n\t"
#define ASM_STAC ZOO_UACCESS_MARK_ASM(1)
#define ASM_CLAC ZOO_UACCESS_MARK_ASM(0)
#define __uaccess_begin() __asm__ __volatile__(ASM_STAC ::: "memory")
#define __uaccess_begin_nospec() __uaccess_begin()
#define __uaccess_end() __asm__ __volatile__(ASM_CLAC ::: "memory")

/* 6.1's extable_fixup_types.h: the type in bits 0-7, a register in 8-11,
 * a signed immediate in 16-31. */
#define EX_TYPE_UACCESS 3
#define EX_TYPE_UCOPY_LEN 19
#define EX_TYPE_UCOPY_LEN1 (EX_TYPE_UCOPY_LEN | (1 << 16))
#define EX_TYPE_UCOPY_LEN4 (EX_TYPE_UCOPY_LEN | (4 << 16))
#define EX_TYPE_UCOPY_LEN8 (EX_TYPE_UCOPY_LEN | (8 << 16))

#define ZOO_EXTABLE_HEAD(from, to)                                                                 \
	"\t.pushsection \"__ex_table\", \"a\"\n\t.balign 4\n\t.long (" #from ") - .\n\t"           \
	".long (" #to ") - .\n\t"
#define _ASM_EXTABLE_TYPE(from, to, type)                                                          \
	ZOO_EXTABLE_HEAD(from, to) ".long " __stringify(type) "\n\t.popsection\n"
#define _ASM_EXTABLE_UA(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_UACCESS)
/* The register's number: its place in the encoding's order, as the
 * kernel's DEFINE_EXTABLE_TYPE_REG counts it (operands print as %eax). */
#if defined(__x86_64__)
#define ZOO_GPRS "rax,rcx,rdx,rbx,rsp,rbp,rsi,rdi,r8,r9,r10,r11,r12,r13,r14,r15"
#else
#define ZOO_GPRS "eax,ecx,edx,ebx,esp,ebp,esi,edi"
#endif
#define _ASM_EXTABLE_TYPE_REG(from, to, type, reg)                                                 \
	ZOO_EXTABLE_HEAD(from, to)                                                                 \
	".set zoo_regnr, 0\n\t.set zoo_found, 0\n\t.irp zoo_rs," ZOO_GPRS "\n\t"                 \
	".ifc " #reg ", %%\\zoo_rs\n\t.long (" __stringify(type) ") | (zoo_regnr << 8)\n\t"        \
	".set zoo_found, 1\n\t.endif\n\t.set zoo_regnr, zoo_regnr + 1\n\t.endr\n\t"               \
	".if zoo_found != 1\n\t.error \"_ASM_EXTABLE_TYPE_REG: not a general register\"\n\t"      \
	".endif\n\t.popsection\n"
#endif

#endif
