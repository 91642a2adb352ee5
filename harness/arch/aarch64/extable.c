/* The aarch64 exception table of Linux 6.1 (struct exception_table_entry
 * { int insn, fixup; short type, data; }, the two offsets relative to
 * their own field) and the handler of arch/arm64/mm/extable.c that user
 * copies use (ex_handler_uaccess_err_zero), applied to a signal's machine
 * context instead of the kernel's pt_regs. A type this does not emulate
 * is said so (the case is an error, not a verdict). */
/* <ucontext.h> names mcontext_t's regs and pc only for _GNU_SOURCE, which the build
 * gives; the standalone reproducer builds this file on its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "extable.h"
#include "extable_types.h"

#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

struct a64_extable_entry {
	int32_t insn, fixup;
	int16_t type, data;
};

/* Made by the linker around the __ex_table sections; weak, as a binary
 * whose routines have no entries has no such section. */
extern const struct a64_extable_entry __start___ex_table[] __attribute__((weak));
extern const struct a64_extable_entry __stop___ex_table[] __attribute__((weak));

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

/* mg_extable_entry's one int holds both shorts: type in bits 0-15, data
 * in bits 16-31. */
static int pack(const struct a64_extable_entry *e)
{
	return (int)((uint32_t)(uint16_t)e->type | (uint32_t)(uint16_t)e->data << 16);
}

static int type_of(int packed)
{
	return (int16_t)(packed & 0xffff);
}

static int data_of(int packed)
{
	return (int)((uint32_t)packed >> 16);
}

int mg_extable_find(const void *pc, struct mg_extable_entry *out)
{
	size_t n = mg_extable_count();

	/* Unsorted and short: the kernel sorts its table at build time and
	 * bisects, which changes nothing a routine can see. */
	for (size_t i = 0; i < n; i++) {
		const struct a64_extable_entry *e = &__start___ex_table[i];
		if (resolve(&e->insn) == pc) {
			out->insn = pc;
			out->fixup = resolve(&e->fixup);
			out->data = pack(e);
			return 1;
		}
	}
	return 0;
}

static int err_reg(int packed)
{
	return data_of(packed) & 0x1f;
}

static int zero_reg(int packed)
{
	return (data_of(packed) >> 5) & 0x1f;
}

/* pt_regs_write_reg: register 31 is xzr, and a write to it is dropped. */
static void write_reg(ucontext_t *uc, int nr, unsigned long long value)
{
	if (nr != MG_EX_REG_ZR)
		uc->uc_mcontext.regs[nr] = value;
}

int mg_extable_apply(const struct mg_extable_entry *e, void *ucontext, char *why, size_t size)
{
	ucontext_t *uc = ucontext;
	int type = type_of(e->data);

	if (type != MG_EX_TYPE_UACCESS_ERR_ZERO && type != MG_EX_TYPE_KACCESS_ERR_ZERO) {
		char name[48];
		mg_extable_describe(e, name, sizeof name);
		snprintf(why, size,
			 "exception-table type %s is not emulated (only UACCESS_ERR_ZERO and "
			 "KACCESS_ERR_ZERO are)",
			 name);
		return 0;
	}
	/* ex_handler_uaccess_err_zero */
	write_reg(uc, err_reg(e->data), (unsigned long long)-(long long)MG_EX_EFAULT);
	write_reg(uc, zero_reg(e->data), 0);
	uc->uc_mcontext.pc = (unsigned long long)(uintptr_t)e->fixup;
	return 1;
}

static void reg_name(int nr, char *out, size_t size)
{
	if (nr == MG_EX_REG_ZR)
		snprintf(out, size, "xzr");
	else
		snprintf(out, size, "x%d", nr);
}

void mg_extable_describe(const struct mg_extable_entry *e, char *out, size_t size)
{
	static const char *const names[] = {
		[MG_EX_TYPE_NONE] = "NONE",
		[MG_EX_TYPE_BPF] = "BPF",
		[MG_EX_TYPE_UACCESS_ERR_ZERO] = "UACCESS_ERR_ZERO",
		[MG_EX_TYPE_KACCESS_ERR_ZERO] = "KACCESS_ERR_ZERO",
		[MG_EX_TYPE_LOAD_UNALIGNED_ZEROPAD] = "LOAD_UNALIGNED_ZEROPAD",
	};
	int type = type_of(e->data);
	char err[8], zero[8];

	if (type < 0 || (size_t)type >= sizeof names / sizeof names[0]) {
		snprintf(out, size, "type %d (data 0x%x)", type, (unsigned)data_of(e->data));
		return;
	}
	if (type != MG_EX_TYPE_UACCESS_ERR_ZERO && type != MG_EX_TYPE_KACCESS_ERR_ZERO) {
		snprintf(out, size, "%s (%d)", names[type], type);
		return;
	}
	reg_name(err_reg(e->data), err, sizeof err);
	reg_name(zero_reg(e->data), zero, sizeof zero);
	snprintf(out, size, "%s(%s, %s)", names[type], err, zero);
}
