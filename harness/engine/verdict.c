#include "verdict.h"
#include "fault.h"

#include <signal.h>
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
	[MG_ALIGNED_OVERREAD] = "aligned-over-read",
	[MG_UNHANDLED_FAULT] = "unhandled-fault",
	[MG_KERNEL_FAULT] = "kernel-fault",
	[MG_WRONG_COUNT] = "wrong-count",
	[MG_WRITE_PAST_COUNT] = "write-past-count",
	[MG_NOTHING_COPIED] = "nothing-copied",
	[MG_ERROR] = "error",
};

const char *mg_warning_text(unsigned warning)
{
	switch (warning) {
	case MG_WARN_DIRTY_UPPER:
		return "AVX upper state left dirty on return (no vzeroupper): correct, but the "
		       "caller's SSE code slows down";
	case MG_WARN_ALIGNED_OVERREAD:
		return "reads past a buffer, but only within a naturally aligned block that holds "
		       "a byte of it: cannot fault on x86 (aligned-over-read; --overread=strict "
		       "makes it a failure)";
	default: return "?";
	}
}

const char *mg_unjudged_name(unsigned part)
{
	switch (part) {
	case MG_UNJUDGED_X87_RESUMED: return "x87-after-signal";
	case MG_UNJUDGED_X87_STEPPED: return "x87-environment-under-step";
	default: return "?";
	}
}

const char *mg_unjudged_check(unsigned part)
{
	return part == MG_UNJUDGED_X87_STEPPED ? "interrupts" : "abi";
}

const char *mg_unjudged_text(unsigned part)
{
	switch (part) {
	case MG_UNJUDGED_X87_RESUMED:
		return "the x87 part of fpu-state, on calls a signal returned into (a fault resumed "
		       "at its fixup, a step): this emulator's sigreturn does not give a thread its "
		       "x87 state back (qemu-i386 7.2), so the x87 registers after such a call say "
		       "nothing of the routine (docs/contract.md, IK3)";
	case MG_UNJUDGED_X87_STEPPED:
		return "the interrupts in a non-default x87 environment: this emulator's sigreturn "
		       "does not give a thread its x87 state back (qemu-i386 7.2), so such cases ran "
		       "in the default environment (docs/contract.md, S1)";
	default: return "?";
	}
}

void mg_overread_describe(const struct mg_overread *r, char *out, size_t size)
{
	snprintf(out, size, "%s, %lld byte%s %s, within an aligned %u-byte block",
		 mg_buffer_name((enum mg_buffer)r->buffer), r->distance, r->distance == 1 ? "" : "s",
		 r->side == MG_SIDE_BEFORE ? "before the start" : "past the end", r->width);
}

const char *mg_warning_name(unsigned warning)
{
	return warning == MG_WARN_DIRTY_UPPER	     ? "dirty-upper"
	       : warning == MG_WARN_ALIGNED_OVERREAD ? "aligned-over-read"
						     : "?";
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

static void say(struct mg_verdict *out, const char *format, va_list args)
{
	size_t used = strlen(out->detail);

	vsnprintf(out->detail + used, sizeof out->detail - used, format, args);
}

void mg_verdict_say(struct mg_verdict *out, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	say(out, format, args);
	va_end(args);
}

void mg_verdict_set(struct mg_verdict *out, enum mg_class cls, const char *format, ...)
{
	va_list args;

	mg_verdict_start(out, cls);
	va_start(args, format);
	say(out, format, args);
	va_end(args);
}

const char *mg_buffer_name(enum mg_buffer buffer)
{
	return buffer == MG_BUFFER_SRC ? "src" : "dst";
}

const char *mg_side_name(enum mg_side side)
{
	switch (side) {
	case MG_SIDE_BEFORE: return "before";
	case MG_SIDE_PAST_END: return "past-end";
	default: return "inside";
	}
}

const char *mg_access_name(enum mg_access access)
{
	switch (access) {
	case MG_ACCESS_READ: return "read";
	case MG_ACCESS_WRITE: return "write";
	default: return NULL;
	}
}

/* The words for a side, as the detail and the site say it. */
static const char *side_words(enum mg_side side)
{
	switch (side) {
	case MG_SIDE_BEFORE: return "before it";
	case MG_SIDE_PAST_END: return "past the end";
	default: return "inside it";
	}
}

/* "src, 1 byte past the end (at src+17, len 17)", from the fields. */
static void say_where(struct mg_verdict *out, size_t len)
{
	const char *name = mg_buffer_name(out->buffer);
	long long d = out->distance;

	switch (out->side) {
	case MG_SIDE_BEFORE:
		mg_verdict_say(out, "%s, %lld byte%s before it (at %s%lld)", name, d,
			       d == 1 ? "" : "s", name, out->offset);
		break;
	case MG_SIDE_PAST_END:
		mg_verdict_say(out, "%s, %lld byte%s past the end (at %s+%lld, len %zu)", name, d,
			       d == 1 ? "" : "s", name, out->offset, len);
		break;
	default: mg_verdict_say(out, "%s, inside it (at %s+%lld)", name, name, out->offset); break;
	}
}

void mg_verdict_locate(struct mg_verdict *out, enum mg_buffer buffer, const unsigned char *base,
		       size_t len, const unsigned char *addr)
{
	out->has |= MG_HAS_WHERE;
	out->buffer = buffer;
	out->offset = (long long)(addr - base);
	if (addr < base) {
		out->side = MG_SIDE_BEFORE;
		out->distance = (long long)(base - addr);
	} else if (addr >= base + len) {
		out->side = MG_SIDE_PAST_END;
		out->distance = (long long)(addr - (base + len)) + 1;
	} else {
		out->side = MG_SIDE_INSIDE;
		out->distance = 0;
	}
	say_where(out, len);
}

void mg_verdict_byte(struct mg_verdict *out, long long index, unsigned got, unsigned want)
{
	out->has |= MG_HAS_BYTE;
	out->index = index;
	out->got = got;
	out->want = want;
	out->got_run_len = 0;
}

void mg_verdict_abi(struct mg_verdict *out, const char *rule, int is_register, int has_values,
		    unsigned long long old_value, unsigned long long new_value, const char *format,
		    ...)
{
	va_list args;

	mg_verdict_start(out, MG_ABI_VIOLATION);
	out->has |= MG_HAS_RULE | (has_values ? MG_HAS_VALUES : 0);
	snprintf(out->rule, sizeof out->rule, "%s", rule);
	out->rule_is_register = is_register;
	out->old_value = old_value;
	out->new_value = new_value;
	va_start(args, format);
	say(out, format, args);
	va_end(args);
}

static void fault_site(const struct mg_verdict *v, char *out, size_t size)
{
	if (v->has & MG_HAS_WHERE)
		snprintf(out, size, "%s %s", mg_buffer_name(v->buffer), side_words(v->side));
	else
		snprintf(out, size, "elsewhere");
}

/* "SIGILL at sym+0x4"; "died of SIGABRT" when the process died of it. */
static void crash_site(const struct mg_verdict *v, char *out, size_t size)
{
	const char *sig = mg_signal_name(v->signo);

	if (v->has & MG_HAS_EXIT)
		snprintf(out, size, "exited during the call");
	else if (v->has & MG_HAS_CALLED)
		snprintf(out, size, "called %s", v->called);
	else if (!(v->has & MG_HAS_SIGNAL))
		snprintf(out, size, "-");
	else if (v->died)
		snprintf(out, size, "died of %s", sig);
	else if (v->has & MG_HAS_PC)
		snprintf(out, size, "%s at %s", sig, v->pc);
	else
		snprintf(out, size, "%s", sig);
}

static void abi_site(const struct mg_verdict *v, char *out, size_t size)
{
	if (!(v->has & MG_HAS_RULE))
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%s%s", v->rule, v->rule_is_register ? " clobbered" : "");
}

void mg_verdict_site(const struct mg_verdict *v, char *out, size_t size)
{
	switch (v->cls) {
	case MG_OOB_READ:
	case MG_ALIGNED_OVERREAD:
	case MG_OOB_WRITE:
	case MG_KERNEL_FAULT: fault_site(v, out, size); break;
	case MG_CRASH:
	case MG_UNHANDLED_FAULT: crash_site(v, out, size); break;
	case MG_ABI_VIOLATION: abi_site(v, out, size); break;
	default: snprintf(out, size, "-"); break;
	}
}

const char *mg_signal_name(int signo)
{
	switch (signo) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGALRM: return "SIGALRM";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGABRT: return "SIGABRT";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	default: return signo == mg_watchdog_signal() ? "the watchdog's signal" : "signal";
	}
}
