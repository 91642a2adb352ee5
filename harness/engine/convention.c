/* Register conventions of a routine's own: the parser, the fit to an
 * operation, and the variants' parsed conventions (docs/conventions.md). */
#include "convention.h"
#include "abi.h"
#include "table.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MG_ABI_GPR_NAMES
static const char *const gpr_names[MG_ABI_GPR_COUNT] = MG_ABI_GPR_NAMES;
#define GPR_COUNT MG_ABI_GPR_COUNT
#else
static const char *const gpr_names[1] = {"?"};
#define GPR_COUNT 0
#endif
#define GPR_MAX (GPR_COUNT ? GPR_COUNT : 1)

const char *mg_convention_reg_name(int reg)
{
	return reg >= 0 && reg < GPR_COUNT ? gpr_names[reg] : "?";
}

static int fail(char *err, size_t size, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	vsnprintf(err, size, format, ap);
	va_end(ap);
	return -1;
}

static void valid_names(char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < GPR_COUNT && used < size; i++)
#ifdef MG_ABI_GPR_SP
		if (i != MG_ABI_GPR_SP)
#endif
			used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "",
						 gpr_names[i]);
}

/* One register name of length n at s: its number, or -1 with the reason. */
static int parse_reg(const char *s, size_t n, char *err, size_t size)
{
	char valid[160];

	for (int i = 0; i < GPR_COUNT; i++)
		if (strlen(gpr_names[i]) == n && strncmp(gpr_names[i], s, n) == 0) {
#ifdef MG_ABI_GPR_SP
			if (i == MG_ABI_GPR_SP)
				return fail(err, size,
					    "'%s' is the stack pointer: no argument, result or "
					    "clobber",
					    gpr_names[i]);
#endif
			return i;
		}
	valid_names(valid, sizeof valid);
	return fail(err, size, "unknown register '%.*s' (valid: %s)", (int)n, s, valid);
}

/* A comma-separated list of registers, each once: their numbers in order
 * (at most `max`), or -1 with the reason. */
static int parse_list(const char *key, const char *s, size_t n, int *regs, unsigned max,
		      char *err, size_t size)
{
	unsigned count = 0;
	uint32_t seen = 0;
	const char *end = s + n;

	if (n == 0)
		return fail(err, size, "'%s=' names no register", key);
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
		int reg;

		if (len == 0)
			return fail(err, size, "'%s=' has an empty register name", key);
		reg = parse_reg(s, len, err, size);
		if (reg < 0)
			return -1;
		if (seen & (1u << reg))
			return fail(err, size, "'%s' named twice in '%s='", gpr_names[reg], key);
		if (count == max)
			return fail(err, size, "'%s=' names more than %u register%s ('%.*s')", key,
				    max, max == 1 ? "" : "s", (int)len, s);
		seen |= 1u << reg;
		regs[count++] = reg;
		if (!comma)
			break;
		s = comma + 1;
	}
	return (int)count;
}

static uint32_t mask_of(const int *regs, int count)
{
	uint32_t m = 0;

	for (int i = 0; i < count; i++)
		m |= 1u << regs[i];
	return m;
}

/* One key=value field: into *out, or -1 with the reason. */
static int parse_field(const char *field, size_t n, struct mg_convention *out, unsigned *given,
		       char *err, size_t size)
{
	static const char *const keys[] = {"args", "ret", "clobbers", "zero"};
	const char *eq = memchr(field, '=', n);
	size_t klen = eq ? (size_t)(eq - field) : n;
	int regs[GPR_MAX];
	int key = -1, count;

	for (int k = 0; k < 4; k++)
		if (strlen(keys[k]) == klen && strncmp(keys[k], field, klen) == 0)
			key = k;
	if (key < 0 || !eq)
		return fail(err, size,
			    "'%.*s' is not KEY=REGISTERS (keys: args, ret, clobbers, zero)", (int)n,
			    field);
	if (*given & (1u << key))
		return fail(err, size, "'%s=' given twice", keys[key]);
	*given |= 1u << key;
	count = parse_list(keys[key], eq + 1, n - klen - 1, regs,
			   key == 0 ? MG_CONV_MAX_ARGS : key == 1 ? 1 : GPR_MAX, err,
			   size);
	if (count < 0)
		return -1;
	if (key == 0) {
		out->nargs = (unsigned)count;
		memcpy(out->args, regs, (size_t)count * sizeof regs[0]);
	} else if (key == 1) {
		out->ret = regs[0];
	} else if (key == 2) {
		out->clobbers = mask_of(regs, count);
	} else {
		out->zero = mask_of(regs, count);
	}
	return 0;
}

/* A register named as an argument or the result and zeroed too says two
 * things of one register. */
static int consistent(const struct mg_convention *c, char *err, size_t size)
{
	uint32_t in = mask_of(c->args, (int)c->nargs);

	for (int i = 0; i < GPR_COUNT; i++) {
		uint32_t bit = 1u << i;
		if ((c->zero & bit) && (in & bit))
			return fail(err, size, "'%s' is an argument and zero= too", gpr_names[i]);
		if ((c->clobbers & bit) && (in & bit))
			return fail(err, size,
				    "'%s' is an argument, so may change already: not in clobbers=",
				    gpr_names[i]);
		if ((c->clobbers & bit) && c->ret == i)
			return fail(err, size, "'%s' is the result: not in clobbers=",
				    gpr_names[i]);
	}
	return 0;
}

int mg_convention_parse(const char *text, struct mg_convention *out, char *err, size_t size)
{
	unsigned given = 0;
	const char *s = text;

	memset(out, 0, sizeof *out);
	out->text = text;
	out->ret = -1;
	if (strcmp(text, "c") == 0)
		return 0;
	if (GPR_COUNT == 0)
		return fail(err, size, "register conventions are implemented for x86-64 and i386 only");
	for (;;) {
		size_t n;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n = strcspn(s, " ");
		if (parse_field(s, n, out, &given, err, size) < 0)
			return -1;
		s += n;
	}
	if (!(given & 1u))
		return fail(err, size, "no 'args=' (the registers of the arguments, in order)");
	return consistent(out, err, size);
}

static unsigned operand_count(enum mg_op op)
{
	switch (op) {
	case MG_CLEAR_PAGE: return 1;
	case MG_COPY_PAGE:
	case MG_CLEAR_USER: return 2;
	default: return 3;
	}
}

int mg_convention_fits(const struct mg_convention *c, enum mg_op op, enum mg_ret ret, char *err,
		       size_t size)
{
	unsigned want = operand_count(op);
	int page = op == MG_COPY_PAGE || op == MG_CLEAR_PAGE;

	if (c->nargs != want && !(page && c->nargs == want + 1))
		return fail(err, size, "%s takes %u argument%s%s, and args= names %u",
			    mg_op_name(op), want, want == 1 ? "" : "s",
			    page ? " (and may take the length, 4096, after them)" : "", c->nargs);
	if (ret == MG_RET_VOID && c->ret >= 0)
		return fail(err, size, "%s returns nothing: no ret=", mg_op_name(op));
	if (ret != MG_RET_VOID && c->ret < 0)
		return fail(err, size, "%s returns a value: ret= names its register",
			    mg_op_name(op));
	return 0;
}

uint32_t mg_convention_may_change(const struct mg_convention *c)
{
	return mask_of(c->args, (int)c->nargs) | (c->ret >= 0 ? 1u << c->ret : 0) | c->clobbers;
}

unsigned mg_convention_operands(enum mg_op op, uintptr_t a0, uintptr_t a1, size_t len,
				uintptr_t out[MG_CONV_MAX_ARGS])
{
	out[0] = a0;
	switch (op) {
	case MG_CLEAR_PAGE:
	case MG_CLEAR_USER: out[1] = len; return 2;
	default: out[1] = a1; out[2] = len; return 3;
	}
}

/* The parsed conventions, one per variant that declares one: published
 * with a release store of `parsed`, so that a reader needs no lock. */
#define CACHE_SIZE 64
static struct {
	const struct mg_variant *v;
	struct mg_convention c;
} cache[CACHE_SIZE];
static unsigned parsed;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct mg_convention *cached(const struct mg_variant *v)
{
	unsigned n = __atomic_load_n(&parsed, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (cache[i].v == v)
			return &cache[i].c;
	return NULL;
}

static __attribute__((noreturn)) void unusable(const struct mg_variant *v, const char *why)
{
	fprintf(stderr, "memgate: variant %s: convention '%s': %s\n", v->name, v->convention, why);
	exit(2);
}

const struct mg_convention *mg_variant_convention(const struct mg_variant *v)
{
	const struct mg_convention *c;
	struct mg_convention parsed_now;
	char err[256];

	if (!v->convention)
		return NULL;
	c = cached(v);
	if (c)
		return c->nargs ? c : NULL;
	if (mg_convention_parse(v->convention, &parsed_now, err, sizeof err) < 0)
		unusable(v, err);
	if (parsed_now.nargs &&
	    mg_convention_fits(&parsed_now, v->op, v->ret, err, sizeof err) < 0)
		unusable(v, err);
	pthread_mutex_lock(&cache_lock);
	c = cached(v);
	if (!c) {
		if (parsed == CACHE_SIZE) {
			pthread_mutex_unlock(&cache_lock);
			unusable(v, "more variants with a convention than memgate keeps (64)");
		}
		cache[parsed].v = v;
		cache[parsed].c = parsed_now;
		c = &cache[parsed].c;
		__atomic_store_n(&parsed, parsed + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cache_lock);
	return c->nargs ? c : NULL;
}
