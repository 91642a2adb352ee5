/* Conventions of every assembly file: the variants (impls/), the broken
 * variants (tests/bad/) and the ABI trampolines (harness/arch/).
 *
 *	#include "asmdefs.h"
 *		.text
 *	ENTRY(mg_x86_64_memcpy_example)
 *		...
 *	L(loop):		a local label: not in the symbol table
 *		...
 *	END(mg_x86_64_memcpy_example)
 *
 * ENTRY makes a global function symbol, aligned to 16 bytes, and opens its
 * call frame information; END closes both. The CFI is what lets a debugger
 * (scripts/repro --gdb) unwind through the routine: a routine that moves the
 * stack pointer describes that with cfi_adjust_cfa_offset and the like. On
 * aarch64 ENTRY starts with a BTI landing pad (`bti c`, a no-op where BTI is
 * off) so that the routine may be called indirectly from BTI-enforcing code.
 *
 * Including this header also marks the stack non-executable (.note.GNU-stack)
 * and, on aarch64, the object BTI-compatible (the GNU property note). */
#ifndef MG_ASMDEFS_H
#define MG_ASMDEFS_H

#ifndef __ASSEMBLER__
#error "asmdefs.h is for assembly files"
#endif

#define L(name) .L##name

#if defined(__aarch64__)

#define MG_FUNCTION %function
#define MG_PROGBITS %progbits
/* BTI's landing pad for calls (br/blr), as a hint so that assemblers
 * without BTI accept it. */
#define BTI_C hint 34

/* The property note that says every function of this object has its landing
 * pad: GNU_PROPERTY_AARCH64_FEATURE_1_AND with the BTI bit. */
#define MG_NT_GNU_PROPERTY_TYPE_0	   5
#define MG_GNU_PROPERTY_AARCH64_FEATURE_1 0xc0000000
#define MG_AARCH64_FEATURE_1_BTI	   1
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4				/* name size: "GNU\0" */
	.word	16				/* descriptor size */
	.word	MG_NT_GNU_PROPERTY_TYPE_0
	.asciz	"GNU"
	.word	MG_GNU_PROPERTY_AARCH64_FEATURE_1
	.word	4				/* the property's size */
	.word	MG_AARCH64_FEATURE_1_BTI
	.word	0				/* padding to 8 bytes */
	.popsection

#define MG_LANDING_PAD BTI_C

#include "aarch64/extable_types.h" /* beside this file: a variant needs only -Iharness/arch */

/* An exception-table entry, in the format of Linux 6.1 on arm64 (the
 * kernel's __ASM_EXTABLE_RAW): the instruction at `from` may fault on user
 * memory; the kernel then resumes at `to`, in the state the handler `type`
 * (extable_types.h) leaves, with its operands in `data`. Self-relative
 * offsets, as the kernel's. */
#define MG_EXTABLE(from, to, type, data)                                                           \
	.pushsection "__ex_table", "a";                                                            \
	.balign 4;                                                                                 \
	.long(from) - .;                                                                           \
	.long(to) - .;                                                                             \
	.short type;                                                                               \
	.short data;                                                                               \
	.popsection
/* The entry user copies use (the kernel's _asm_extable_uaccess): a
 * UACCESS_ERR_ZERO that names no register, so the handler only resumes. */
#define MG_EXTABLE_UA(from, to)                                                                    \
	MG_EXTABLE(from, to, MG_EX_TYPE_UACCESS_ERR_ZERO,                                          \
		   MG_EX_DATA_REG_ERR(MG_EX_REG_ZR) | MG_EX_DATA_REG_ZERO(MG_EX_REG_ZR))
/* One user access and its entry, as the kernel's USER(fixup, insn). */
#define MG_USER(to, insn...)                                                                       \
	9999: insn;                                                                                \
	MG_EXTABLE_UA(9999b, to)

#elif defined(__riscv)

#define MG_FUNCTION %function
#define MG_PROGBITS %progbits
#define MG_LANDING_PAD

#elif defined(__arm__)

/* 32-bit Arm (armhf). `@` starts a comment in ARM assembly, so the type
 * and section-type arguments use `%`, as on aarch64. Routines are in A32
 * state (.arm); there is no landing pad. */
#define MG_FUNCTION %function
#define MG_PROGBITS %progbits
#define MG_LANDING_PAD

#else

#define MG_FUNCTION @function
#define MG_PROGBITS @progbits
#define MG_LANDING_PAD

#include "x86/extable_types.h" /* beside this file: a variant needs only -Iharness/arch */

/* An exception-table entry, in the format of Linux 6.1 on x86 (the
 * kernel's _ASM_EXTABLE_TYPE): the instruction at `from` may fault on
 * user memory; the kernel then resumes at `to`, in the state the handler
 * `type` (extable_types.h) leaves. Self-relative offsets, as the kernel's. */
#define MG_EXTABLE(from, to, type)                                                                 \
	.pushsection "__ex_table", "a";                                                            \
	.balign 4;                                                                                 \
	.long(from) - .;                                                                           \
	.long(to) - .;                                                                             \
	.long type;                                                                                \
	.popsection
/* The types user copies use (the kernel's _ASM_EXTABLE_UA, _ASM_EXTABLE_CPY). */
#define MG_EXTABLE_UA(from, to)	 MG_EXTABLE(from, to, MG_EX_TYPE_UACCESS)
#define MG_EXTABLE_CPY(from, to) MG_EXTABLE(from, to, MG_EX_TYPE_COPY)
/* The SMAP brackets (the kernel's ASM_STAC, ASM_CLAC). stac and clac are
 * privileged (#UD at CPL 3), so each is a 3-byte nop here, as long as the
 * instruction, and a record in __memgate_uaccess ({ int at - ., kind: 1
 * opens, 0 closes }, the format zoo/kernel/shim.h's ASM_STAC writes), which
 * the gate's uaccess check reads (scripts/orchestration/uaccess_audit.py). */
#define MG_UACCESS_MARK(kind)                                                                      \
	99771: .byte 0x0f, 0x1f, 0x00;                                                             \
	.pushsection "__memgate_uaccess", "a";                                                     \
	.balign 4;                                                                                 \
	.long 99771b - .;                                                                          \
	.long kind;                                                                                \
	.popsection
#define MG_STAC MG_UACCESS_MARK(1)
#define MG_CLAC MG_UACCESS_MARK(0)

#endif

	.pushsection .note.GNU-stack, "", MG_PROGBITS
	.popsection

/* A function only this file calls: no global symbol. */
#define LOCAL_ENTRY(name)                                                                          \
	.type name, MG_FUNCTION;                                                                   \
	.p2align 4;                                                                                \
	name:                                                                                      \
	.cfi_startproc;                                                                            \
	MG_LANDING_PAD

#define ENTRY(name)                                                                                \
	.globl name;                                                                               \
	LOCAL_ENTRY(name)

#define END(name)                                                                                  \
	.cfi_endproc;                                                                              \
	.size name, .- name

#endif
