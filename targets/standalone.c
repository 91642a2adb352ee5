/* The fixed part of the standalone program that `scripts/repro --emit-c`
 * writes (targets/emit_c.c writes the parts that depend on the case: the
 * header comment, the layout, the bytes, the call and the reference).
 *
 * It is real C, built and run on its own with a sample case
 * (tests/standalone_case.h): `make` compiles it with -Werror as
 * build/test-standalone, and `make check` runs that. For --emit-c the build
 * turns it into strings (scripts/c-sections writes build/gen/standalone_text.h):
 * the text after each "//@ NAME" line, up to the next one, becomes
 * standalone_NAME; the "case" section is only this file's, emit_c.c writes
 * the real case there. The notes below end the emitted header comment.
 *
//@ notes
 * How it runs, as memgate runs it. The reservation memgate's sandbox maps
 * is mapped again: three arenas of ARENA bytes with a PROT_NONE guard
 * page on each side of each (the source below, the destination, the
 * source above). Each buffer sits at memgate's offset in it, so it is as
 * far from each guard page as in memgate, and a source of its own is
 * read-only during the call. The buffers hold the exact bytes memgate
 * filled them with, the destination's 128-byte red zones included. The
 * variant is called once, directly (through at_stack_offset where
 * memgate's case had its own stack alignment at entry, and between
 * enter_fpenv and leave_fpenv where it had its own floating-point
 * environment); the byte loop reference() runs on a copy. Faults are
 * caught with sigaction and siglongjmp, and a timer stands in for
 * memgate's watchdog. The verdict takes the first of: a
 * fault (with the address relative to each buffer), a changed red-zone
 * byte, a wrong byte in dst, a wrong return value.
 *
 * Not checked: memgate calls each variant through a trampoline that also
 * checks the callee-saved registers, the stack, the direction flag, MXCSR
 * and the x87 control word, and passes garbage in the upper half of
 * memset's int. A plain C call cannot show those; for an abi-violation,
 * reproduce with memgate (the replay command above).
 */
//@ includes
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>

#define PAGE 4096

//@ pool
#define POOL_SEED 0x6d656d67617465ull
/* memgate's random pool: 64-bit splitmix64 words from the seed "memgate",
 * stored little-endian; byte k is byte k % 8 of word k / 8. Word k is
 * splitmix64 of state seed + (k + 1) * golden, and the mix adds golden
 * once more. */
static uint64_t pool_word(uint64_t k)
{
	uint64_t x = POOL_SEED + (k + 2) * 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

//@ pool_fill
/* Fills `to` with n pool bytes from offset `off`, and checks them against
 * the FNV-1a hash of the bytes memgate used. */
static void pool_fill(unsigned char *to, uint64_t off, size_t n, uint64_t hash,
		      const char *what)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		to[i] = (unsigned char)(pool_word((off + i) / 8) >> (8 * ((off + i) % 8)));
		h = (h ^ to[i]) * 0x100000001b3ull;
	}
	if (h != hash) {
		fprintf(stderr, "the %s bytes are not the ones memgate used\n", what);
		exit(2);
	}
}

//@ case
#include "standalone_case.h"

//@ setup
static unsigned char *lo, *hi; /* the whole reservation, guard pages included */
static unsigned char *src, *dst, *win;
static unsigned char *want; /* the window after reference() */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* [guard] arena [guard] arena [guard] arena [guard] */
static void map_arenas(void)
{
	size_t all = 3 * ARENA + 4 * PAGE;

	lo = mmap(NULL, all, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (lo == MAP_FAILED)
		die("mmap");
	hi = lo + all;
	for (int i = 0; i < 3; i++)
		if (mprotect(lo + PAGE + i * (ARENA + PAGE), ARENA, PROT_READ | PROT_WRITE))
			die("mprotect");
}

static int in_window(const unsigned char *p)
{
	return (uintptr_t)p >= (uintptr_t)win && (uintptr_t)p < (uintptr_t)win + win_len;
}

/* Fills the buffers, runs the reference on a copy of the window, and makes
 * the source arenas read-only. */
static void set_up(void)
{
	map_arenas();
	src = lo + SRC_OFF;
	dst = lo + DST_OFF;
	win = lo + WIN_OFF;
	if (len && SRC_SEPARATE)
		fill_src(src);
	fill_win(win);
	want = malloc(win_len + 1);
	if (!want)
		die("malloc");
	memcpy(want, win, win_len);
	reference(want + (dst - win), in_window(src) ? want + (src - win) : src);
	if (mprotect(lo + PAGE, ARENA, PROT_READ) ||
	    mprotect(lo + 3 * PAGE + 2 * ARENA, ARENA, PROT_READ))
		die("mprotect");
}

//@ signals
static sigjmp_buf escape;
static volatile int fault_signo, fault_gp, fault_write = -1;
static void *volatile fault_addr, *volatile fault_pc;
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGALRM};
#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])

/* The pc a signal interrupted (NULL where this program does not read it). */
static void *context_pc(const void *context)
{
#if defined(__x86_64__)
	return (void *)((const ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (void *)((const ucontext_t *)context)->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (void *)((const ucontext_t *)context)->uc_mcontext.pc;
#else
	(void)context;
	return NULL;
#endif
}

/* What a signal says about the fault: the signal, the address, the pc and
 * (x86) whether it was a page fault's read or write or a general-protection
 * fault. */
static void decode(int signo, const siginfo_t *info, const void *context)
{
	fault_signo = signo;
	fault_addr = info->si_addr;
	fault_pc = context_pc(context);
#if defined(__x86_64__) || defined(__i386__)
	/* Trap 14 is a page fault, whose error code says read or write; trap
	 * 13 is a general-protection fault (reported with address 0). */
	const greg_t *regs = ((const ucontext_t *)context)->uc_mcontext.gregs;

	fault_gp = regs[REG_TRAPNO] == 13;
	if (signo == SIGSEGV && regs[REG_TRAPNO] == 14)
		fault_write = (regs[REG_ERR] & 2) != 0;
#endif
}

static void on_signal(int signo, siginfo_t *info, void *context)
{
	decode(signo, info, context);
	siglongjmp(escape, 1);
}

static void catch_signals(void (*handler)(int, siginfo_t *, void *))
{
	static char alt[64 << 10];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = handler ? SA_SIGINFO | SA_ONSTACK : 0;
	if (handler)
		sa.sa_sigaction = handler;
	else
		sa.sa_handler = SIG_DFL;
	if (handler && sigaltstack(&ss, NULL))
		die("sigaltstack");
	for (size_t i = 0; i < SIGNAL_COUNT; i++)
		sigaction(signals[i], &sa, NULL);
}

static void set_timer(long ms)
{
	struct itimerval t = {{0, 0}, {ms / 1000, ms % 1000 * 1000}};

	setitimer(ITIMER_REAL, &t, NULL);
}

/* After a fault, or a variant that broke the rule, the C code that
 * follows needs the direction flag clear. */
static void after_call(void)
{
	set_timer(0);
	catch_signals(NULL);
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("cld");
#endif
}

//@ report
/* What follows the verdict's detail: in threads, what the call does alone
 * (standalone_threads.c). */
static const char *verdict_tail = "";

static int verdict(const char *cls, const char *detail)
{
	printf("verdict: %s: %s%s\n", cls, detail, verdict_tail);
	return 1;
}

/* "src, 1 byte past the end (at src+17, len 17)", as memgate words it. */
static void where(char *out, size_t size, const char *name, const unsigned char *base,
		  const unsigned char *a)
{
	ptrdiff_t d = a - base;

	if (d < 0)
		snprintf(out, size, "%s, %td byte%s before it (at %s%td)", name, -d,
			 d == -1 ? "" : "s", name, d);
	else if ((size_t)d >= len)
		snprintf(out, size, "%s, %zu byte%s past the end (at %s+%td, len %zu)", name,
			 (size_t)d - len + 1, (size_t)d == len ? "" : "s", name, d, len);
	else
		snprintf(out, size, "%s, inside it (at %s+%td)", name, name, d);
}

/* How far `a` is from a buffer: 0 inside it. */
static size_t distance(const unsigned char *base, const unsigned char *a)
{
	if (a < base)
		return (size_t)(base - a);
	return a >= base + len ? (size_t)(a - (base + len)) + 1 : 0;
}

static const char *signal_name(int signo)
{
	switch (signo) {
	case SIGSEGV: return fault_gp ? "SIGSEGV (general-protection fault)" : "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL (illegal instruction)";
	case SIGFPE: return "SIGFPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	default: return "a signal";
	}
}

/* A faulting pc as ENTRY_NAME+0x2b, or the raw pointer. */
static void pc_text(char *out, size_t size, const void *pc)
{
	ptrdiff_t off = (const char *)pc - (const char *)entry_address();

	if (off >= 0 && off < 0x10000)
		snprintf(out, size, "%s+0x%tx", ENTRY_NAME, off);
	else
		snprintf(out, size, "%p", pc);
}

/* The failure function the routine called, where the program defines
 * them (emit_c.c writes them for a verdict that names one), or NULL. */
static const char *volatile failure_called;

static int report_crash(const unsigned char *a)
{
	char pc[96], detail[256];

	pc_text(pc, sizeof pc, fault_pc);
	if (failure_called) {
		/* The trap was the stub's: the routine's own act was the call. */
		snprintf(detail, sizeof detail, "called %s, a failure function that does not return",
			 failure_called);
		return verdict("crash", detail);
	}
	if (fault_signo == SIGABRT)
		snprintf(detail, sizeof detail, "SIGABRT at pc %s", pc);
	else
		snprintf(detail, sizeof detail, "%s at pc %s, address %p",
			 signal_name(fault_signo), pc, (void *)a);
	return verdict("crash", detail);
}

/* A fault on memory: where, relative to each buffer. */
static void show_fault(const unsigned char *a)
{
	if ((fault_signo != SIGSEGV || fault_gp) && fault_signo != SIGBUS)
		return;
	printf("fault:   %s, %s at %p: ", signal_name(fault_signo),
	       fault_write < 0 ? "an access" : fault_write ? "a write" : "a read", (void *)a);
	if (HAS_SRC)
		printf("src%+td, ", a - src);
	printf("dst%+td (len %zu)\n", a - dst, len);
}

static int report_fault(void)
{
	const unsigned char *a = fault_addr;
	int owned = a >= lo && a < hi;
	char at[160], detail[256];

	show_fault(a);
	if (fault_signo == SIGALRM) {
		snprintf(detail, sizeof detail, "no return within %d ms (timer)", TIMEOUT_MS);
		return verdict("timeout", detail);
	}
	if (!owned || fault_signo != SIGSEGV || fault_gp || fault_write < 0)
		return report_crash(a);
	if (fault_write && SRC_SEPARATE && distance(src, a) == 0) {
		snprintf(detail, sizeof detail,
			 "wrote src+%td (len %zu); the source is read-only during the call",
			 a - src, len);
		return verdict("src-modified", detail);
	}
	if (HAS_SRC && distance(src, a) < distance(dst, a))
		where(at, sizeof at, "src", src, a);
	else
		where(at, sizeof at, "dst", dst, a);
	return verdict(fault_write ? "out-of-bounds-write" : "out-of-bounds-read", at);
}

//@ compare
static int hex(char *out, size_t size, const unsigned char *p, size_t from, size_t to,
	       size_t mark)
{
	int used = 0;

	for (size_t i = from; i < to && (size_t)used < size; i++)
		used += snprintf(out + used, size - (size_t)used, i == mark ? " [%02x]" : " %02x",
				 p[i]);
	return used;
}

/* The window bytes around index k, the first difference marked. */
static void show_around(size_t k)
{
	size_t from = k > 8 ? k - 8 : 0, to = k + 9 < win_len ? k + 9 : win_len;
	char got[128], wanted[128];
	ptrdiff_t at = win + from - dst;

	hex(got, sizeof got, win, from, to, k);
	hex(wanted, sizeof wanted, want, from, to, k);
	printf("  from dst%+td:\n  got: %s\n  want:%s\n", at, got, wanted);
}

static int red_zone(size_t k)
{
	char at[160], detail[256];

	where(at, sizeof at, "dst", dst, win + k);
	snprintf(detail, sizeof detail, "%s: changed 0x%02x -> 0x%02x", at, want[k], win[k]);
	return verdict("out-of-bounds-write", detail);
}

//@ bytes
static void *volatile returned;

static int wrong_result(size_t first)
{
	size_t before = (size_t)(dst - win), i = first - before, wrong = 0;
	size_t show = len - i < 8 ? len - i : 8;
	char detail[320], got[64], wanted[64];

	for (size_t k = first; k < before + len; k++)
		wrong += win[k] != want[k];
	hex(got, sizeof got, win, first, first + show, SIZE_MAX);
	hex(wanted, sizeof wanted, want, first, first + show, SIZE_MAX);
	snprintf(detail, sizeof detail,
		 "dst[%zu] got 0x%02x want 0x%02x (%zu of %zu bytes wrong); from dst[%zu] got%s "
		 "want%s",
		 i, win[first], want[first], wrong, len, i, got, wanted);
	verdict("wrong-result", detail);
	show_around(first);
	return 1;
}

/* "dst+17", "src-3" or the raw pointer. */
static int wrong_return(void)
{
	const unsigned char *r = returned;
	ptrdiff_t near = (ptrdiff_t)len + PAGE;
	char detail[128];

	if (r - dst >= -near && r - dst <= near)
		snprintf(detail, sizeof detail, "returned dst%+td, want dst+%zu", r - dst,
			 (size_t)RETURNS_DST_PLUS);
	else if (HAS_SRC && r - src >= -near && r - src <= near)
		snprintf(detail, sizeof detail, "returned src%+td, want dst+%zu", r - src,
			 (size_t)RETURNS_DST_PLUS);
	else
		snprintf(detail, sizeof detail, "returned %p, want dst+%zu", (void *)r,
			 (size_t)RETURNS_DST_PLUS);
	return verdict("wrong-return", detail);
}

/* Red zones (and the rest of a memmove region) first, then dst, then the
 * return value: the verdict of what is wrong (1), or nothing (0). */
static int report_bytes(void)
{
	size_t before = (size_t)(dst - win);

	for (size_t k = 0; k < before; k++)
		if (win[k] != want[k])
			return red_zone(k);
	for (size_t k = win_len; k > before + len; k--)
		if (win[k - 1] != want[k - 1])
			return red_zone(k - 1);
	for (size_t k = before; k < before + len; k++)
		if (win[k] != want[k])
			return wrong_result(k);
	if (RETURNS_DST && returned != (unsigned char *)dst + RETURNS_DST_PLUS)
		return wrong_return();
	return 0;
}

//@ main
int main(void)
{
	set_up();
	printf("case:    %s\nmemgate: %s\n", case_text, memgate_verdict);
	/* What the environment or the flags at entry make the routine do
	 * (memgate's entry-fpenv and entry-flags findings) shows here: the
	 * call enters with them. */
	if (strncmp(memgate_verdict, "abi-violation", 13) == 0 &&
	    !strstr(memgate_verdict, "depends on the floating-point environment at entry") &&
	    !strstr(memgate_verdict, "depends on the arithmetic flags at entry"))
		printf("note:    a plain call cannot check the ABI: reproduce with memgate.\n"
		       "         The broken rule may upset this program after the call.\n");
#ifdef TAG
	/* Tagged pointers (emit_c.c writes TAG and say_untagged): the
	 * verdict ends with what the call does untagged. */
	say_untagged();
#endif
#ifdef VL
	/* An SVE vector length of its own (emit_c.c writes VL and set_vl):
	 * the verdict ends with what the call does at the start-up one. */
	set_vl();
#endif
	fflush(stdout);
	catch_signals(on_signal);
	if (sigsetjmp(escape, 1)) {
		after_call();
		exit(report_fault());
	}
	set_timer(TIMEOUT_MS);
	returned = call_variant(dst, src);
	after_call();
	/* exit, not return: a variant that broke the ABI may have broken the
	 * frames above this one. */
	if (report_bytes())
		exit(1);
	printf("verdict: ok\n");
	exit(0);
}
