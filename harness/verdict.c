#include "verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const class_names[MG_CLASS_COUNT] = {
	[MG_OK] = "ok",
	[MG_WRONG_RESULT] = "wrong-result",
	[MG_OOB_READ] = "out-of-bounds-read",
	[MG_OOB_WRITE] = "out-of-bounds-write",
	[MG_SRC_MODIFIED] = "src-modified",
	[MG_WRONG_RETURN] = "wrong-return",
	[MG_CRASH] = "crash",
	[MG_TIMEOUT] = "timeout",
	[MG_ABI_VIOLATION] = "abi-violation",
};

const char *mg_warning_text(unsigned warning)
{
	switch (warning) {
	case MG_WARN_DIRTY_UPPER:
		return "AVX upper state left dirty on return (no vzeroupper): correct, but the "
		       "caller's SSE code slows down";
	default: return "?";
	}
}

const char *mg_class_name(enum mg_class cls)
{
	return cls < MG_CLASS_COUNT ? class_names[cls] : "?";
}

enum mg_class mg_class_parse(const char *name)
{
	for (int c = 0; c < MG_CLASS_COUNT; c++)
		if (strcmp(name, class_names[c]) == 0)
			return (enum mg_class)c;
	return MG_CLASS_COUNT;
}

void mg_class_mask_format(unsigned mask, char *out, unsigned size)
{
	size_t used = 0;

	out[0] = '\0';
	for (int c = 0; c < MG_CLASS_COUNT && used < size; c++)
		if (mask & MG_CLASS_BIT(c))
			used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "," : "",
						 class_names[c]);
}

void mg_verdict_set(struct mg_verdict *out, enum mg_class cls, const char *format, ...)
{
	va_list args;

	out->cls = cls;
	va_start(args, format);
	vsnprintf(out->detail, sizeof out->detail, format, args);
	va_end(args);
}

/* The words of a detail that say where, without the numbers that say how
 * far: "dst past the end", "src before it", "SIGILL at pc sym+0x4". */
static void fault_site(const char *detail, char *out, size_t size)
{
	const char *comma = strchr(detail, ',');
	const char *side = strstr(detail, "past the end") ? "past the end"
			   : strstr(detail, "before it")  ? "before it"
							  : "inside it";
	int buffer = comma ? (int)(comma - detail) : (int)strlen(detail);

	snprintf(out, size, "%.*s %s", buffer, detail, side);
}

/* "SIGILL at sym+0x4"; "died of SIGABRT" when the process died of it. */
static void crash_site(const char *detail, char *out, size_t size)
{
	const char *sig = strstr(detail, "SIG");
	const char *pc = strstr(detail, " at pc ");
	int sig_len = sig ? (int)strcspn(sig, " ),") : 0;

	if (!sig)
		snprintf(out, size, "-");
	else if (strstr(detail, "died of"))
		snprintf(out, size, "died of %.*s", sig_len, sig);
	else if (!pc)
		snprintf(out, size, "%.*s", sig_len, sig);
	else {
		pc += strlen(" at pc ");
		snprintf(out, size, "%.*s at %.*s", sig_len, sig, (int)strcspn(pc, ", "), pc);
	}
}

/* "rbx clobbered", "direction flag left set": the rule, not the values. */
static void abi_site(const char *detail, char *out, size_t size)
{
	int n = (int)strcspn(detail, ":(,");

	while (n > 0 && detail[n - 1] == ' ')
		n--;
	snprintf(out, size, "%.*s", n, detail);
}

void mg_verdict_site(const struct mg_verdict *v, char *out, size_t size)
{
	switch (v->cls) {
	case MG_OOB_READ:
	case MG_OOB_WRITE: fault_site(v->detail, out, size); break;
	case MG_CRASH: crash_site(v->detail, out, size); break;
	case MG_ABI_VIOLATION: abi_site(v->detail, out, size); break;
	default: snprintf(out, size, "-"); break;
	}
}
