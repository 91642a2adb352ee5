/* The x86 exception table of Linux 6.1 (struct exception_table_entry
 * { int insn, fixup, data; }, each offset relative to its own field) and
 * the handlers of arch/x86/mm/extable.c that user copies use, applied to a
 * signal's machine context instead of the kernel's pt_regs. A type this
 * does not emulate is said so (the case is an error, not a verdict). */
/* <ucontext.h> names REG_RIP and its kin only for _GNU_SOURCE, which the build
 * gives; the standalone reproducer builds this file on its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "extable.h"
#include "extable_types.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

struct x86_extable_entry {
	int32_t insn, fixup, data;
};

/* Made by the linker around the __ex_table sections; weak, as a binary
 * whose routines have no entries has no such section. */
extern const struct x86_extable_entry __start___ex_table[] __attribute__((weak));
extern const struct x86_extable_entry __stop___ex_table[] __attribute__((weak));

static const void *resolve(const int32_t *field)
{
	return (const char *)field + *field;
}

size_t mg_extable_count(void)
{
	if (!__start___ex_table || !__stop___ex_table)
		return 0;
	return (size_t)(__stop___ex_table - __start___ex_table);
}

int mg_extable_find(const void *pc, struct mg_extable_entry *out)
{
	size_t n = mg_extable_count();

	/* Unsorted and short: the kernel sorts its table at build time and
	 * bisects, which changes nothing a routine can see. */
	for (size_t i = 0; i < n; i++) {
		const struct x86_extable_entry *e = &__start___ex_table[i];
		if (resolve(&e->insn) == pc) {
			out->insn = pc;
			out->fixup = resolve(&e->fixup);
			out->data = e->data;
			return 1;
		}
	}
	return 0;
}

static int type_of(int data)
{
	return data & 0xff;
}

static int reg_of(int data)
{
	return (data >> 8) & 0xf;
}

static int flags_of(int data)
{
	return (data >> 12) & 0xf;
}

static long imm_of(int data)
{
	return (long)(data >> 16); /* arithmetic: the immediate is signed */
}

/* The machine context's slot for the kernel's register number. */
static greg_t *reg_slot(ucontext_t *uc, int nr)
{
#if defined(__x86_64__)
	static const int slots[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
				      REG_RSI, REG_RDI, REG_R8,	 REG_R9,  REG_R10, REG_R11,
				      REG_R12, REG_R13, REG_R14, REG_R15};
	return &uc->uc_mcontext.gregs[slots[nr & 15]];
#else
	static const int slots[8] = {REG_EAX, REG_ECX, REG_EDX, REG_EBX,
				     REG_UESP, REG_EBP, REG_ESI, REG_EDI};
	return nr < 8 ? &uc->uc_mcontext.gregs[slots[nr]] : NULL;
#endif
}

static const char *const reg_names[16] = {
#if defined(__x86_64__)
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
#else
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
#endif
};

#if defined(__x86_64__)
#define PC_SLOT REG_RIP
#else
#define PC_SLOT REG_EIP
#endif

/* ex_handler_default: the flags' registers cleared, then the fixup. */
static void resume(const struct mg_extable_entry *e, ucontext_t *uc)
{
	if (flags_of(e->data) & 1)
		*reg_slot(uc, MG_EX_REG_AX) = 0;
	if (flags_of(e->data) & 2)
		*reg_slot(uc, MG_EX_REG_DX) = 0;
	uc->uc_mcontext.gregs[PC_SLOT] = (greg_t)(uintptr_t)e->fixup;
}

int mg_extable_apply(const struct mg_extable_entry *e, void *ucontext, char *why, size_t size)
{
	ucontext_t *uc = ucontext;
	greg_t *reg = reg_slot(uc, reg_of(e->data));

	switch (type_of(e->data)) {
	case MG_EX_TYPE_DEFAULT:
	case MG_EX_TYPE_UACCESS: break;
	case MG_EX_TYPE_FAULT:
	case MG_EX_TYPE_COPY: *reg_slot(uc, MG_EX_REG_AX) = MG_X86_TRAP_PF; break;
	case MG_EX_TYPE_IMM_REG:
		if (!reg)
			goto no_reg;
		*reg = (greg_t)imm_of(e->data);
		break;
	case MG_EX_TYPE_UCOPY_LEN:
		if (!reg)
			goto no_reg;
		*reg_slot(uc, MG_EX_REG_CX) =
			(greg_t)((unsigned long)imm_of(e->data) *
					 (unsigned long)*reg_slot(uc, MG_EX_REG_CX) +
				 (unsigned long)*reg);
		break;
	default:
		snprintf(why, size,
			 "exception-table type %d (data 0x%x) is not emulated (only DEFAULT, "
			 "FAULT, UACCESS, COPY, IMM_REG and UCOPY_LEN are)",
			 type_of(e->data), (unsigned)e->data);
		return 0;
	}
	resume(e, uc);
	return 1;
no_reg:
	snprintf(why, size, "exception-table register %d does not exist here", reg_of(e->data));
	return 0;
}

void mg_extable_describe(const struct mg_extable_entry *e, char *out, size_t size)
{
	const char *reg = reg_names[reg_of(e->data)] ? reg_names[reg_of(e->data)] : "?";

	switch (type_of(e->data)) {
	case MG_EX_TYPE_DEFAULT: snprintf(out, size, "DEFAULT"); break;
	case MG_EX_TYPE_FAULT: snprintf(out, size, "FAULT"); break;
	case MG_EX_TYPE_UACCESS: snprintf(out, size, "UACCESS"); break;
	case MG_EX_TYPE_COPY: snprintf(out, size, "COPY"); break;
	case MG_EX_TYPE_IMM_REG: snprintf(out, size, "IMM_REG(%s, %ld)", reg, imm_of(e->data)); break;
	case MG_EX_TYPE_UCOPY_LEN:
		snprintf(out, size, "UCOPY_LEN(%s, %ld)", reg, imm_of(e->data));
		break;
	default: snprintf(out, size, "type %d", type_of(e->data)); break;
	}
}
