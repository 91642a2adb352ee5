/* The part of the standalone program that `scripts/repro --emit-c` writes
 * for a user copy (copy_from_user, copy_to_user, clear_user) in place of
 * targets/standalone.c's "notes" and "main": the program is standalone.c's
 * other sections, the case (targets/emit_c.c), then these.
 *
 * It is real C: the build puts it together with standalone.c's sections
 * and a sample case (tests/standalone_user_case.h) as emit_c.c would, in
 * build/gen/standalone_user_sample.c, and compiles that with -Werror as
 * build/test-standalone-user, which `make check` runs. For --emit-c these
 * sections become strings too (build/gen/standalone_user_text.h).
 *
//@ user_notes
 * How it runs, as memgate runs a user copy. The reservation memgate's
 * sandbox maps is mapped again (three arenas, a PROT_NONE guard page on
 * each side of each), each buffer at memgate's offset in it, holding the
 * bytes memgate filled it with, red zones included. The user buffer (src
 * for copy_from_user, dst for copy_to_user and clear_user) has byte
 * FAULT_AT at the start of a page, and from that page to the one holding
 * its last byte is PROT_NONE for the call. A fault there at an instruction
 * the routine's exception table lists (its __ex_table section, which the
 * link gathers) resumes at that entry's fixup in the state the kernel's
 * handler gives: memgate's own emulation of the handlers, built in
 * (harness/arch/ISA/extable.c). The verdict takes the first of: a fault
 * there at an instruction the table does not list (unhandled-fault), a
 * fault in the kernel buffer's arena (kernel-fault), any other fault; then
 * the rules of docs/usercopy.md in their order: the red zones around `to`,
 * the count (in [0, n], 0 with nothing faulting, no more copied than
 * could be), nothing changed past to + n - ret, the n - ret bytes copied
 * as the byte loop copies them, and n only when not even the first byte
 * could be copied.
 *
 * Not checked: memgate calls each variant through a trampoline that also
 * checks the callee-saved registers, the stack and the flags, and its
 * gate audits the SMAP brackets and the exception table statically. A
 * plain C call shows none of those: reproduce them with memgate (the
 * replay command above).
 */
//@ user
/* memgate's emulation of the kernel's exception-table handlers. */
#include "extable.h"

static unsigned char *user, *prot;
static unsigned long count;	   /* what the routine returned */
static char refused[160];	   /* an entry whose type is not emulated */
static const unsigned char *before; /* the window as the call found it */

/* The kernel buffer: the other one (clear_user has none). */
#define KERNEL_BUF (USER_IS_SRC ? dst : src)

/* From byte FAULT_AT of the user buffer on, PROT_NONE during the call. */
static void protect_user(int on)
{
	int prot_after = USER_IS_SRC ? PROT_READ : PROT_READ | PROT_WRITE;

	if (prot && mprotect(prot, PROT_LEN, on ? PROT_NONE : prot_after))
		die("mprotect");
}

static void set_up_user(void)
{
	unsigned char *copy = malloc(win_len + 1);

	set_up();
	if (!copy)
		die("malloc");
	memcpy(copy, win, win_len);
	before = copy;
	user = USER_IS_SRC ? src : dst;
	prot = FAULT_AT >= 0 ? user + FAULT_AT : NULL;
}

static int on_user_pages(const unsigned char *a)
{
	return prot && a >= prot && a < user + len;
}

/* A page fault on the user pages at a listed instruction is resumed at
 * its entry's fixup, as the kernel's handler would; any other signal ends
 * the call (on_signal). */
static void on_user_signal(int signo, siginfo_t *info, void *context)
{
	struct mg_extable_entry e;

	decode(signo, info, context);
	if (signo == SIGSEGV && !fault_gp && on_user_pages(fault_addr) &&
	    mg_extable_find(fault_pc, &e) &&
	    mg_extable_apply(&e, context, refused, sizeof refused))
		return;
	on_signal(signo, info, context);
}

/* Arena i (0 the source below, 1 the destination, 2 the source above)
 * with its guard pages, as memgate's sandbox tells them apart. */
static int in_arena(int i, const unsigned char *a)
{
	const unsigned char *from = lo + (size_t)i * (ARENA + PAGE);

	return a >= from && a < from + ARENA + 2 * PAGE;
}

static int in_kernel_arena(const unsigned char *a)
{
	if (IS_CLEAR_USER)
		return 0;
	return USER_IS_SRC ? in_arena(1, a) : in_arena(0, a) || in_arena(2, a);
}

/* A fault in one buffer, in memgate's words: where, which buffer (the
 * user's or the kernel's), the pc, and what it means. */
static int buffer_fault(const char *cls, const char *side, const char *name,
			const unsigned char *buf, const char *meaning)
{
	const unsigned char *a = fault_addr;
	char at[160], pc[96], detail[400];

	show_fault(a);
	where(at, sizeof at, name, buf, a);
	pc_text(pc, sizeof pc, fault_pc);
	snprintf(detail, sizeof detail, "%s; the %s buffer faulted at pc %s%s", at, side, pc,
		 meaning);
	return verdict(cls, detail);
}

static int report_user_fault(void)
{
	const unsigned char *a = fault_addr;
	int page_fault = fault_signo == SIGSEGV && !fault_gp;

	if (refused[0]) {
		printf("not judged: %s\n", refused);
		return 2;
	}
	if (page_fault && on_user_pages(a))
		return buffer_fault("unhandled-fault", "user", USER_IS_SRC ? "src" : "dst", user,
				    ", which the exception table does not list: the kernel would oops");
	if (page_fault && in_kernel_arena(a))
		return buffer_fault("kernel-fault", "kernel", USER_IS_SRC ? "dst" : "src", KERNEL_BUF,
				    ": it never faults (an oops, or with an exception entry a kernel "
				    "overrun passed off as a short copy)");
	return report_fault();
}

/* How many bytes the routine could copy: up to the fault, or all. */
static size_t copyable(void)
{
	return FAULT_AT >= 0 ? (size_t)FAULT_AT : len;
}

static int count_rule(void)
{
	size_t copied = len - count;
	char detail[256];

	if (count > len)
		snprintf(detail, sizeof detail, "returned %lu, more than n = %zu", count, len);
	else if (FAULT_AT < 0 && count != 0)
		snprintf(detail, sizeof detail,
			 "returned %lu with nothing faulting: a copy that succeeds returns 0", count);
	else if (copied > copyable())
		snprintf(detail, sizeof detail,
			 "returned %lu of n = %zu, so %zu byte%s copied, but the user buffer faults "
			 "from byte %zu: at most %zu could be",
			 count, len, copied, copied == 1 ? "" : "s", copyable(), copyable());
	else
		return 0;
	return verdict("wrong-count", detail);
}

static int past_count_rule(void)
{
	size_t copied = len - count, at = (size_t)(dst - win);
	char detail[320];

	for (size_t i = copied; i < len; i++) {
		if (win[at + i] == before[at + i])
			continue;
		snprintf(detail, sizeof detail,
			 "dst[%zu] changed 0x%02x -> 0x%02x, past the %zu byte%s the count says were "
			 "copied (returned %lu of n = %zu): all data past to + n - ret must be left "
			 "unmodified",
			 i, before[at + i], win[at + i], copied, copied == 1 ? "" : "s", count, len);
		return verdict("write-past-count", detail);
	}
	return 0;
}

static int prefix_rule(void)
{
	size_t copied = len - count, at = (size_t)(dst - win), wrong = 0, first = 0;
	char detail[320];

	for (size_t i = copied; i-- > 0;)
		if (win[at + i] != want[at + i])
			wrong++, first = i;
	if (!wrong)
		return 0;
	snprintf(detail, sizeof detail,
		 "dst[%zu] got 0x%02x want 0x%02x (%zu of the %zu bytes the count says were "
		 "copied are wrong; returned %lu of n = %zu)",
		 first, win[at + first], want[at + first], wrong, copied, count, len);
	verdict("wrong-result", detail);
	show_around(at + first);
	return 1;
}

/* The clause is raw_copy_{to,from}_user's; clear_user has none. */
static int gave_up_rule(void)
{
	char detail[256];

	if (IS_CLEAR_USER || count != len || copyable() == 0)
		return 0;
	snprintf(detail, sizeof detail,
		 "returned n = %zu (nothing copied), but the first %zu byte%s could be: n is only "
		 "for when not even the first byte can be copied",
		 len, copyable(), copyable() == 1 ? "" : "s");
	return verdict("nothing-copied", detail);
}

/* The red zones around `to`: standalone.c's, with the same words. */
static int red_zones(void)
{
	size_t at = (size_t)(dst - win);

	for (size_t k = 0; k < win_len; k++)
		if ((k < at || k >= at + len) && win[k] != want[k])
			return red_zone(k);
	return 0;
}

/* The rules of a call that returned, in docs/usercopy.md's order. */
static int report_user_bytes(void)
{
	if (len && red_zones())
		return 1;
	if (count_rule())
		return 1;
	if (len && (past_count_rule() || prefix_rule() || gave_up_rule()))
		return 1;
	printf("verdict: ok\n");
	return 0;
}

int main(void)
{
	set_up_user();
	printf("case:    %s\nmemgate: %s\n", case_text, memgate_verdict);
	fflush(stdout);
	catch_signals(on_user_signal);
	if (sigsetjmp(escape, 1)) {
		after_call();
		protect_user(0);
		exit(report_user_fault());
	}
	protect_user(1);
	set_timer(TIMEOUT_MS);
	count = call_variant(dst, src);
	after_call();
	protect_user(0);
	exit(report_user_bytes());
}
