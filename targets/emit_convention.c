/* A variant with a register convention of its own (docs/conventions.md) in
 * the standalone program: called from inline assembly, as the kernel calls
 * rep_movs_alternative and __clear_pages_unrolled. Each operand is a local
 * register variable bound to the register the convention names (what GCC
 * and clang guarantee for asm operands), the result is read from its
 * register, the clobbers are the asm's, and every other register is the
 * compiler's to keep: the routine must leave it as it found it. */
#include "emit_convention.h"
#include "convention.h"

#include <string.h>

/* The operands' C expressions, in the order of the convention's args=
 * (mg_convention_operands: dst, then src or memset's value, then len). */
static unsigned operand_texts(enum mg_op op, const char *out[MG_CONV_MAX_ARGS])
{
	const char *second = op == MG_MEMSET ? "(uintptr_t)VALUE" : "(uintptr_t)src";
	uintptr_t order[MG_CONV_MAX_ARGS];
	unsigned n = mg_convention_operands(op, 1, 2, 3, order);

	for (unsigned i = 0; i < n; i++)
		out[i] = order[i] == 1 ? "(uintptr_t)dst" : order[i] == 2 ? second : "(uintptr_t)len";
	return n;
}

/* "unsigned long " as a cast spells it: without the trailing space. */
static size_t type_length(const char *type)
{
	size_t n = strlen(type);

	while (n && type[n - 1] == ' ')
		n--;
	return n;
}

static void bind(FILE *f, int reg, const char *value)
{
	const char *name = mg_convention_reg_name(reg);

	fprintf(f, "\tregister uintptr_t r_%s __asm__(\"%s\")%s%s;\n", name, name, value ? " = " : "",
		value ? value : "");
}

/* The asm's operand list: "+r" for what goes in (and may come back
 * changed), "=r" for a result register nothing goes in by. */
static void operands(FILE *f, uint32_t in, int ret)
{
	const char *sep = "";

	for (int reg = 0; reg < 32; reg++)
		if (in & (UINT32_C(1) << reg)) {
			fprintf(f, "%s\"+r\"(r_%s)", sep, mg_convention_reg_name(reg));
			sep = ", ";
		}
	if (ret >= 0 && !(in & (UINT32_C(1) << ret)))
		fprintf(f, "%s\"=r\"(r_%s)", sep, mg_convention_reg_name(ret));
}

static void clobbers(FILE *f, uint32_t clobbered)
{
	for (int reg = 0; reg < 32; reg++)
		if (clobbered & (UINT32_C(1) << reg))
			fprintf(f, "\"%s\", ", mg_convention_reg_name(reg));
	fputs("\"memory\", \"cc\"", f);
}

void mg_emit_convention_call(FILE *f, const struct mg_variant *v, const char *returns)
{
	const struct mg_convention *c = mg_variant_convention(v);
	const char *operand[MG_CONV_MAX_ARGS];
	unsigned n = operand_texts(v->op, operand);
	/* x86-64's red zone: the call's push must not land in this
	 * function's 128 bytes below rsp. */
	int red_zone = strcmp(v->arch, "x86_64") == 0;
	uint32_t in = 0;

	fprintf(f,
		"/* The routine under test, from the file(s) in the build command, with\n"
		" * a register convention of its own, '%s'\n"
		" * (docs/conventions.md): called from inline assembly, each operand in\n"
		" * its register; every register the convention does not name must come\n"
		" * back as it went in. */\n"
		"extern char %s[];\n#define ENTRY_NAME \"%s\"\n"
		"/* The symbol as the assembly names it, after any -D of the build line. */\n"
		"#define SYMBOL_TEXT(s) #s\n#define SYMBOL(s) SYMBOL_TEXT(s)\n\n"
		"static const void *entry_address(void)\n{\n\treturn (const void *)%s;\n}\n\n"
		"static %scall_variant(unsigned char *dst, const unsigned char *src)\n{\n",
		c->text, v->symbol, v->symbol, v->symbol, returns);
	for (unsigned i = 0; i < c->nargs && i < n; i++) {
		bind(f, c->args[i], operand[i]);
		in |= UINT32_C(1) << c->args[i];
	}
	for (int reg = 0; reg < 32; reg++)
		if ((c->zero & (UINT32_C(1) << reg)) && !(in & (UINT32_C(1) << reg))) {
			bind(f, reg, "0");
			in |= UINT32_C(1) << reg;
		}
	if (c->ret >= 0 && !(in & (UINT32_C(1) << c->ret)))
		bind(f, c->ret, NULL);
	fprintf(f, "\n\t(void)dst;\n\t(void)src;\n\t__asm__ volatile(\"%scall \" SYMBOL(%s)%s\n\t\t\t : ",
		red_zone ? "sub $128, %%rsp\\n\\t" : "", v->symbol,
		red_zone ? " \"\\n\\tadd $128, %%rsp\"" : "");
	operands(f, in, c->ret);
	fputs("\n\t\t\t :\n\t\t\t : ", f);
	clobbers(f, c->clobbers & ~in & ~(c->ret >= 0 ? UINT32_C(1) << c->ret : 0));
	fputs(");\n", f);
	if (c->ret >= 0)
		fprintf(f, "\treturn (%.*s)r_%s;\n}\n\n", (int)type_length(returns), returns,
			mg_convention_reg_name(c->ret));
	else
		fputs("\treturn NULL;\n}\n\n", f);
}
