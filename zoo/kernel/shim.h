/* zoo/kernel/shim.h: stands in for the Linux kernel's linkage, export and
 * alternative macros, so that the arch/x86/lib, arch/arm64/lib,
 * arch/riscv/lib and arch/arm/lib routines of a kernel tree (6.1 to the
 * 6.19-era trees) assemble as they are, outside the kernel.
 * `scripts/gate --kernel` and scripts/zoo give it with -include; the
 * kernel's own #include lines find empty files that they make from the
 * sources' own #include lines (scripts/orchestration/kernel_shim.py).
 *
 * The kernel patches its alternatives at boot, from the CPU's features.
 * ZOO_CPU stands for that CPU: a mask of the ZOO_HAS_ bits below. Every
 * ALTERNATIVE assembles the instructions the kernel would leave in place on
 * such a CPU, so each alternative is a routine of its own, gated apart. */
#ifndef ZOO_KERNEL_SHIM_H
#define ZOO_KERNEL_SHIM_H
/* C files (a kernel C file, and the gate's generated data files of the
 * same submission) get the C half, macros and types only. */
#ifndef __ASSEMBLER__
#include "shim_c.h"
#else

#ifndef ZOO_CPU
#define ZOO_CPU 0
#endif
#define __ASSEMBLY__ 1

/* The features the alternatives of arch/{x86,arm64}/lib test. A feature
 * a newer tree tests and this list lacks is named by the gate as a kernel
 * constant the shim does not define (kernel_shim.unknown_constants). */
#define X86_FEATURE_REP_GOOD (1 << 0)
#define X86_FEATURE_ERMS (1 << 1)
#define X86_FEATURE_FSRM (1 << 2)
#define X86_FEATURE_FSRS (1 << 3)
#define ARM64_HAS_NO_HW_PREFETCH (1 << 8)
#define ARM64_HAS_MOPS (1 << 9)

/* include/linux/stringify.h: the x86 alternatives of 6.x quote their
 * instructions with it. */
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)

/* Linkage (include/linux/linkage.h): functions, local functions, aliases.
 * %function, not @function: '@' starts a comment in aarch64 assembly. */
#define ALIGN .p2align 4
#define SYM_FUNC_START_LOCAL(name) ALIGN; .type name, %function; name:
#define SYM_FUNC_START(name) .globl name; SYM_FUNC_START_LOCAL(name)
#define SYM_FUNC_START_WEAK(name) .weak name; SYM_FUNC_START_LOCAL(name)
#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)
#define SYM_FUNC_END(name) .size name, . - name
/* Code that is not a C function (6.1's copy_user_64.S tail handlers). */
#define SYM_CODE_START_LOCAL(name) ALIGN; name:
#define SYM_CODE_START(name) .globl name; SYM_CODE_START_LOCAL(name)
#define SYM_CODE_END(name)
#define SYM_FUNC_ALIAS(alias, name) .globl alias; .type alias, %function; .set alias, name
#define SYM_FUNC_ALIAS_WEAK(alias, name) .weak alias; .type alias, %function; .set alias, name
#define SYM_FUNC_ALIAS_LOCAL(alias, name) .type alias, %function; .set alias, name
/* 6.5 on: memcpy, memmove and memset are aliases (weak only under UML). */
#define SYM_FUNC_ALIAS_MEMFUNC(alias, name) SYM_FUNC_ALIAS(alias, name)
/* 6.16 on (x86): the __pi_ name the kernel's position-independent startup
 * code calls. */
#define SYM_PIC_ALIAS(name) SYM_FUNC_ALIAS(__pi_##name, name)

/* The older names (include/linux/linkage.h), which 6.1's riscv memcpy.S
 * and memset.S use: ENTRY a global function, WEAK a weak one, END its size. */
#define ENTRY(name) .globl name; ALIGN; .type name, %function; name:
#define WEAK(name) .weak name; ALIGN; .type name, %function; name:
#define END(name) .size name, . - name

/* Exports and objtool annotations mean nothing here. */
#define EXPORT_SYMBOL(name)
#define EXPORT_SYMBOL_GPL(name)
#define ANNOTATE_RETPOLINE_SAFE
#define ANNOTATE_NOENDBR

/* Pages (include/asm-generic/page.h, include/uapi/linux/const.h). */
#define PAGE_SHIFT 12
#define PAGE_SIZE (1 << PAGE_SHIFT)
/* The cache line, for alignment (arch/arm64/include/asm/cache.h; arm's
 * ARMv7 line, CONFIG_ARM_L1_CACHE_SHIFT, is the same). */
#define L1_CACHE_SHIFT 6
#define L1_CACHE_BYTES (1 << L1_CACHE_SHIFT)
#define _AC(x, y) x
#define _UL(x) x
#define _ULL(x) x

#if defined(__x86_64__) || defined(__i386__)
#define RET ret

/* The exception table (arch/x86/include/asm/asm.h, extable_fixup_types.h
 * of 6.1): real entries, in the kernel's format, which memgate's emulation
 * reads for the user copies (docs/usercopy.md); inert for other routines. */
#define EX_TYPE_DEFAULT 1
#define EX_TYPE_FAULT 2
#define EX_TYPE_UACCESS 3
#define EX_TYPE_COPY 4
#define X86_TRAP_PF 14
#define X86_TRAP_MC 18
#define _ASM_EXTABLE_TYPE(from, to, type) \
	.pushsection "__ex_table", "a"; .balign 4; .long (from) - .; .long (to) - .; .long type; .popsection
#define _ASM_EXTABLE(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_DEFAULT)
#define _ASM_EXTABLE_UA(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_UACCESS)
#define _ASM_EXTABLE_CPY(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_COPY)
#define _ASM_EXTABLE_FAULT(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_FAULT)

/* The SMAP brackets (arch/x86/include/asm/smap.h): stac and clac are
 * privileged (#UD at CPL 3), so each is a 3-byte nop, as long as the
 * instruction (the code keeps the kernel's layout), and a record in
 * __memgate_uaccess ({ int at - .; int kind }: 1 opens, 0 closes), from
 * which the gate's uaccess check (docs/contract.md U9) sees where they
 * are; harness/arch/asmdefs.h's MG_STAC/MG_CLAC write the same. */
#define ZOO_UACCESS_MARK(kind) \
	99771: .byte 0x0f, 0x1f, 0x00; \
	.pushsection "__memgate_uaccess", "a"; .balign 4; .long 99771b - .; .long kind; .popsection
#define ASM_STAC ZOO_UACCESS_MARK(1)
#define ASM_CLAC ZOO_UACCESS_MARK(0)

/* ALTERNATIVE old, new, feature: new on a CPU with the feature. */
.macro ALTERNATIVE oldinstr, newinstr, feature
.if (ZOO_CPU) & (\feature)
	\newinstr
.else
	\oldinstr
.endif
.endm

/* ALTERNATIVE_2: the second feature wins, as in the kernel's patching. */
.macro ALTERNATIVE_2 oldinstr, newinstr1, feature1, newinstr2, feature2
.if (ZOO_CPU) & (\feature2)
	\newinstr2
.elseif (ZOO_CPU) & (\feature1)
	\newinstr1
.else
	\oldinstr
.endif
.endm

#else
#define _ASM_EXTABLE_UA(from, to)
#define _ASM_EXTABLE(from, to)
#endif

#if defined(__riscv)
/* Alignment resolved here, as the kernel's link resolves it: with linker
 * relaxation the assembler pads each .p2align with nops for the link to
 * remove, and a WEAK alias aligned after its ENTRY would sit past it in
 * the object the zoo reads. The files make no calls to relax. */
.option norelax
/* Position-dependent, as the kernel assembles (-fno-PIE): `la` is the
 * pc-relative lla, not a load from a GOT. */
.option nopic
/* rv64: Kconfig's CONFIG_64BIT, which 6.1's memset.S tests for its
 * 64-bit fill pattern and its jump into the unrolled stores. */
#define CONFIG_64BIT 1
/* arch/riscv/include/asm/asm.h: XLEN's loads, stores and size (rv64). */
#define SZREG 8
#define REG_L ld
#define REG_S sd
#endif

#if defined(__arm__)
/* 32-bit Arm (arch/arm/lib of 6.1), as an ARMv7-A little-endian kernel in
 * ARM state builds it: no CONFIG_THUMB2_KERNEL, no CONFIG_CPU_SW_DOMAIN_PAN.
 * The kernel's asm/unified.h asks for the unified syntax (ldrbne, stmiage)
 * of its files; the shim asks for it and for ARM state here. */
	.syntax unified
	.arm
/* asm/linkage.h: the kernel aligns nothing at an ENTRY or WEAK (its
 * __ALIGN is .align 0), and 6.1's __memset32 falls through into the
 * __memset64 below it: padding between them would be code it runs. */
#undef ALIGN
#define ALIGN .align 0
/* ENDPROC: a function's type and size (asm/linkage.h). */
#define ENDPROC(name) .type name, %function; END(name)
/* asm/unified.h in ARM state: ARM() keeps its code, THUMB() drops its
 * own, and W() (a Thumb-2 wide encoding) is the instruction as written. */
#define ARM(code...) code
#define THUMB(code...)
#define W(instr) instr
/* asm/unwind.h with CONFIG_ARM_UNWIND (UNWINDER_ARM, the default of an
 * AEABI kernel): the EHABI unwind directives stay in, and with them the
 * frame register the copies save and set (fpreg, r11 in ARM state). */
#define UNWIND(code...) code
	fpreg .req r11
/* The unwind index of a .fnstart/.fnend names the EABI personality routine
 * its entries use (__aeabi_unwind_cpp_pr0, or pr1 for a longer list of
 * opcodes): a marker for the link (R_ARM_NONE), never called. The kernel,
 * whose own unwinder reads the index, defines them as empty functions
 * (arch/arm/kernel/unwind.c); here so, weak (every file of a gate run
 * gets them) and in a section of their own, away from the routines. */
	.pushsection .text.zoo_unwind_personality, "ax", %progbits
	.weak __aeabi_unwind_cpp_pr0, __aeabi_unwind_cpp_pr1, __aeabi_unwind_cpp_pr2
	.type __aeabi_unwind_cpp_pr0, %function
	.type __aeabi_unwind_cpp_pr1, %function
	.type __aeabi_unwind_cpp_pr2, %function
__aeabi_unwind_cpp_pr0:
__aeabi_unwind_cpp_pr1:
__aeabi_unwind_cpp_pr2:
	bx lr
	.popsection
/* asm/assembler.h: PLD() keeps its preloads from ARMv5 on; CALGN() (the
 * cache-line alignment of Feroceon cores only) drops its code, so memset.S
 * builds its plain loop (`#if ! CALGN(1)+0`). Little-endian: the partial
 * words of a misaligned copy are pulled down (lsr) and pushed up (lsl). */
#define PLD(code...) code
#define CALGN(code...)
#define lspull lsr
#define lspush lsl
/* ret, reteq, retne, ...: a return through a register; ARMv6 on returns
 * through lr with bx (interworking), through another register with a move
 * to pc. */
.irp zoo_c,,eq,ne,cs,cc,mi,pl,vs,vc,hi,ls,ge,lt,gt,le,hs,lo
.macro ret\zoo_c, reg
.ifeqs "\reg", "lr"
	bx\zoo_c \reg
.else
	mov\zoo_c pc, \reg
.endif
.endm
.endr
/* asm-offsets.h's PAGE_SZ is PAGE_SIZE (4 KiB pages on arm); the L1 cache
 * line of an ARMv7 build is the 64 bytes above (CONFIG_ARM_L1_CACHE_SHIFT
 * 6), which copy_page.S's COPY_COUNT divides the page by. */
#define PAGE_SZ PAGE_SIZE
#endif

#if defined(__aarch64__)
/* arm64's MOPS routines (6.x) hold their MOPS code under
 * CONFIG_AS_HAS_MOPS, after an alternative that branches to the generic
 * code on a CPU without MOPS. For such a CPU the shim builds them as an
 * assembler without MOPS would: the same code runs, and no dead MOPS
 * instruction is left for the ISA audit to count. */
#if (ZOO_CPU) & ARM64_HAS_MOPS
#define CONFIG_AS_HAS_MOPS 1
#endif

/* The exception table (arch/arm64/include/asm/asm-extable.h and
 * asm-uaccess.h of 6.1): real entries in the kernel's format ({ int insn,
 * fixup; short type, data; }), which memgate's emulation reads for the
 * user copies (docs/usercopy.md). Every user access of 6.1's
 * copy_from_user.S, copy_to_user.S and clear_user.S is a USER() or a
 * user_ldst/user_ldp/user_stp, each one UACCESS_ERR_ZERO entry that names
 * no register (wzr: register 31 for both the error and the zero). */
#define EX_TYPE_UACCESS_ERR_ZERO 2
#define ZOO_EX_DATA_NO_REGS (31 | (31 << 5))
#define __ASM_EXTABLE_RAW(insn, fixup, type, data) \
	.pushsection __ex_table, "a"; .balign 4; .long (insn) - .; .long (fixup) - .; \
	.short (type); .short (data); .popsection;
#define _ASM_EXTABLE_UACCESS(insn, fixup) \
	__ASM_EXTABLE_RAW(insn, fixup, EX_TYPE_UACCESS_ERR_ZERO, ZOO_EX_DATA_NO_REGS)
.macro _asm_extable_uaccess, insn, fixup
_ASM_EXTABLE_UACCESS(\insn, \fixup)
.endm
/* USER(fixup, insn): the access, and its entry. */
#define USER(l, x...) 9999: x; _asm_extable_uaccess 9999b, l
/* One access and a post-increment; a pair as two unprivileged accesses
 * (ldtr/sttr have no pair form), each with its entry. */
.macro user_ldst l, inst, reg, addr, post_inc
8888: \inst \reg, [\addr]
	add \addr, \addr, \post_inc
	_asm_extable_uaccess 8888b, \l
.endm
.macro user_ldp l, reg1, reg2, addr, post_inc
8888: ldtr \reg1, [\addr]
8889: ldtr \reg2, [\addr, #8]
	add \addr, \addr, \post_inc
	_asm_extable_uaccess 8888b, \l
	_asm_extable_uaccess 8889b, \l
.endm
.macro user_stp l, reg1, reg2, addr, post_inc
8888: sttr \reg1, [\addr]
8889: sttr \reg2, [\addr, #8]
	add \addr, \addr, \post_inc
	_asm_extable_uaccess 8888b, \l
	_asm_extable_uaccess 8889b, \l
.endm
/* The PAN brackets. 6.1's user copies have none of their own: ldtr and
 * sttr are unprivileged accesses, which PAN does not stop, and the
 * software PAN's TTBR0 switch (uaccess_ttbr0_enable/disable: msr
 * ttbr0_el1, which traps at EL0) is made in C around the call
 * (raw_copy_from_user in uaccess.h). A tree whose assembly uses the
 * macros gets each as a nop (user memory is always mapped here) and a
 * record in __memgate_uaccess, as x86's ASM_STAC/ASM_CLAC, from which the
 * gate's uaccess check (docs/contract.md AK6) sees where they are. */
.macro zoo_uaccess_mark, kind
99771: nop
	.pushsection "__memgate_uaccess", "a"; .balign 4; .long 99771b - .; .long \kind; .popsection
.endm
.macro uaccess_ttbr0_enable, tmp1, tmp2, tmp3
	zoo_uaccess_mark 1
.endm
.macro uaccess_ttbr0_disable, tmp1, tmp2
	zoo_uaccess_mark 0
.endm

/* alternative_if CAP ... alternative_else_nop_endif: the block runs only
 * on a CPU with CAP; on others the kernel leaves nops, here the block goes
 * to a section nothing calls. (No .if spanning the two macros: clang's
 * assembler wants each macro's conditionals closed inside it.)
 * alternative_if_not CAP: the block runs only on a CPU without CAP (the
 * MOPS routines branch to their generic code there). */
.macro alternative_if cap
.set zoo_alt_moved, !((ZOO_CPU) & (\cap))
.if zoo_alt_moved
.pushsection .text.zoo_unused_alternative, "ax"
.endif
.endm
.macro alternative_if_not cap
.set zoo_alt_moved, !!((ZOO_CPU) & (\cap))
.if zoo_alt_moved
.pushsection .text.zoo_unused_alternative, "ax"
.endif
.endm
.macro alternative_else_nop_endif
.if zoo_alt_moved
.popsection
.endif
.endm
/* alternative_if CAP ... alternative_else ... alternative_endif: one block
 * or the other runs, never both. */
.macro alternative_else
.if zoo_alt_moved
.popsection
.else
.pushsection .text.zoo_unused_alternative, "ax"
.endif
.set zoo_alt_moved, !zoo_alt_moved
.endm
.macro alternative_endif
.if zoo_alt_moved
.popsection
.endif
.endm
#endif

#endif /* __ASSEMBLER__ */

#endif
