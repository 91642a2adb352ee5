/* scripts/repro --emit-c: writes one case as a standalone C program that
 * needs nothing of memgate but the variant's source file.
 *
 * The program is a few fixed blocks of text (below) and the parts that
 * depend on the case: a header comment, the layout as offsets into the same
 * reservation the sandbox maps, the bytes memgate filled the buffers with,
 * and the call and byte-loop reference of the variant's operation.
 *
 * The header's build command names the variant's source files: those in
 * $MEMGATE_EMIT_SOURCES (scripts/repro finds them, with the files they call
 * into), else impls/ARCH/NAME.{S,c} or tests/bad/ARCH/NAME.{S,c} if one
 * exists here. */
#include "emit_c.h"
#include "call.h"
#include "check.h"
#include "outcome.h"
#include "rng.h"
#include "sandbox.h"
#include "table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Buffers up to this size are written out as arrays; longer ones are
 * regenerated from memgate's random pool by the program. */
#define ARRAY_MAX ((size_t)64 << 10)
/* The seed of the sandbox's random pool (sandbox.c, make_pool: "memgate"). */
#define POOL_SEED ((uint64_t)0x6d656d67617465)

struct emit {
	FILE *f;
	const char *path;
	const struct mg_case *c;
	const struct mg_verdict *v;
	const struct mg_sandbox *sb;
	struct mg_layout at;
	unsigned char *base; /* the start of the sandbox's reservation */
	int pool_used;	     /* the pool generator has been written */
};

static const char *partial; /* a file to remove if writing it fails */

__attribute__((noreturn, format(printf, 1, 2))) static void fail(const char *format, ...)
{
	va_list args;

	fputs("replay: --emit-c: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	if (partial)
		unlink(partial);
	exit(2);
}

/* ---- the program's fixed text ---- */

static const char notes_text[] =
	" * How it runs, as memgate runs it. The reservation memgate's sandbox maps\n"
	" * is mapped again: three arenas of ARENA bytes with a PROT_NONE guard\n"
	" * page on each side of each (the source below, the destination, the\n"
	" * source above). Each buffer sits at memgate's offset in it, so it is as\n"
	" * far from each guard page as in memgate, and a source of its own is\n"
	" * read-only during the call. The buffers hold the exact bytes memgate\n"
	" * filled them with, the destination's 128-byte red zones included. The\n"
	" * variant is called once, directly; the byte loop reference() runs on a\n"
	" * copy. Faults are caught with sigaction and siglongjmp, and a timer\n"
	" * stands in for memgate's watchdog. The verdict takes the first of: a\n"
	" * fault (with the address relative to each buffer), a changed red-zone\n"
	" * byte, a wrong byte in dst, a wrong return value.\n"
	" *\n"
	" * Not checked: memgate calls each variant through a trampoline that also\n"
	" * checks the callee-saved registers, the stack, the direction flag, MXCSR\n"
	" * and the x87 control word, and passes garbage in the upper half of\n"
	" * memset's int. A plain C call cannot show those; for an abi-violation,\n"
	" * reproduce with memgate (the replay command above).\n"
	" */\n";

static const char includes_text[] = "#define _GNU_SOURCE\n"
				    "#include <setjmp.h>\n"
				    "#include <signal.h>\n"
				    "#include <stddef.h>\n"
				    "#include <stdint.h>\n"
				    "#include <stdio.h>\n"
				    "#include <stdlib.h>\n"
				    "#include <string.h>\n"
				    "#include <sys/mman.h>\n"
				    "#include <sys/time.h>\n"
				    "#include <ucontext.h>\n"
				    "\n"
				    "#define PAGE 4096\n"
				    "\n";

/* memgate's random pool, for buffers too long to list: mg_rng_next's
 * splitmix64 words from the sandbox's seed, the seed written in between. */
static const char pool_head[] =
	"/* memgate's random pool: 64-bit splitmix64 words from the seed \"memgate\",\n"
	" * stored little-endian; byte k is byte k % 8 of word k / 8. Word k is\n"
	" * splitmix64 of state seed + (k + 1) * golden, and the mix adds golden\n"
	" * once more. */\n"
	"static uint64_t pool_word(uint64_t k)\n"
	"{\n"
	"\tuint64_t x = POOL_SEED + (k + 2) * 0x9e3779b97f4a7c15ull;\n"
	"\n"
	"\tx = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
	"\tx = (x ^ (x >> 27)) * 0x94d049bb133111ebull;\n"
	"\treturn x ^ (x >> 31);\n"
	"}\n"
	"\n"
	"/* Fills `to` with n pool bytes from offset `off`, and checks them against\n"
	" * the FNV-1a hash of the bytes memgate used. */\n"
	"static void pool_fill(unsigned char *to, uint64_t off, size_t n, uint64_t hash,\n"
	"\t\t      const char *what)\n"
	"{\n"
	"\tuint64_t h = 0xcbf29ce484222325ull;\n"
	"\n"
	"\tfor (size_t i = 0; i < n; i++) {\n"
	"\t\tto[i] = (unsigned char)(pool_word((off + i) / 8) >> (8 * ((off + i) % 8)));\n"
	"\t\th = (h ^ to[i]) * 0x100000001b3ull;\n"
	"\t}\n"
	"\tif (h != hash) {\n"
	"\t\tfprintf(stderr, \"the %s bytes are not the ones memgate used\\n\", what);\n"
	"\t\texit(2);\n"
	"\t}\n"
	"}\n"
	"\n";

static const char setup_text[] =
	"static unsigned char *lo, *hi; /* the whole reservation, guard pages included */\n"
	"static unsigned char *src, *dst, *win;\n"
	"static unsigned char *want; /* the window after reference() */\n"
	"static void *volatile returned;\n"
	"\n"
	"static void die(const char *what)\n"
	"{\n"
	"\tperror(what);\n"
	"\texit(2);\n"
	"}\n"
	"\n"
	"/* [guard] arena [guard] arena [guard] arena [guard] */\n"
	"static void map_arenas(void)\n"
	"{\n"
	"\tsize_t all = 3 * ARENA + 4 * PAGE;\n"
	"\n"
	"\tlo = mmap(NULL, all, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);\n"
	"\tif (lo == MAP_FAILED)\n"
	"\t\tdie(\"mmap\");\n"
	"\thi = lo + all;\n"
	"\tfor (int i = 0; i < 3; i++)\n"
	"\t\tif (mprotect(lo + PAGE + i * (ARENA + PAGE), ARENA, PROT_READ | PROT_WRITE))\n"
	"\t\t\tdie(\"mprotect\");\n"
	"}\n"
	"\n"
	"static int in_window(const unsigned char *p)\n"
	"{\n"
	"\treturn (uintptr_t)p >= (uintptr_t)win && (uintptr_t)p < (uintptr_t)win + win_len;\n"
	"}\n"
	"\n"
	"/* Fills the buffers, runs the reference on a copy of the window, and makes\n"
	" * the source arenas read-only. */\n"
	"static void set_up(void)\n"
	"{\n"
	"\tmap_arenas();\n"
	"\tsrc = lo + SRC_OFF;\n"
	"\tdst = lo + DST_OFF;\n"
	"\twin = lo + WIN_OFF;\n"
	"\tif (len && SRC_SEPARATE)\n"
	"\t\tfill_src(src);\n"
	"\tfill_win(win);\n"
	"\twant = malloc(win_len + 1);\n"
	"\tif (!want)\n"
	"\t\tdie(\"malloc\");\n"
	"\tmemcpy(want, win, win_len);\n"
	"\treference(want + (dst - win), in_window(src) ? want + (src - win) : src);\n"
	"\tif (mprotect(lo + PAGE, ARENA, PROT_READ) ||\n"
	"\t    mprotect(lo + 3 * PAGE + 2 * ARENA, ARENA, PROT_READ))\n"
	"\t\tdie(\"mprotect\");\n"
	"}\n"
	"\n";

static const char signals_text[] =
	"static sigjmp_buf escape;\n"
	"static volatile int fault_signo, fault_gp, fault_write = -1;\n"
	"static void *volatile fault_addr, *volatile fault_pc;\n"
	"static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, "
	"SIGALRM};\n"
	"#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])\n"
	"\n"
	"static void on_signal(int signo, siginfo_t *info, void *context)\n"
	"{\n"
	"\tfault_signo = signo;\n"
	"\tfault_addr = info->si_addr;\n"
	"#if defined(__x86_64__)\n"
	"\t/* Trap 14 is a page fault, whose error code says read or write; trap\n"
	"\t * 13 is a general-protection fault (reported with address 0). */\n"
	"\tconst greg_t *regs = ((ucontext_t *)context)->uc_mcontext.gregs;\n"
	"\tfault_pc = (void *)regs[REG_RIP];\n"
	"\tfault_gp = regs[REG_TRAPNO] == 13;\n"
	"\tif (signo == SIGSEGV && regs[REG_TRAPNO] == 14)\n"
	"\t\tfault_write = (regs[REG_ERR] & 2) != 0;\n"
	"#else\n"
	"\t(void)context;\n"
	"#endif\n"
	"\tsiglongjmp(escape, 1);\n"
	"}\n"
	"\n"
	"static void catch_signals(void (*handler)(int, siginfo_t *, void *))\n"
	"{\n"
	"\tstatic char alt[64 << 10];\n"
	"\tstack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};\n"
	"\tstruct sigaction sa;\n"
	"\n"
	"\tmemset(&sa, 0, sizeof sa);\n"
	"\tsigemptyset(&sa.sa_mask);\n"
	"\tsa.sa_flags = handler ? SA_SIGINFO | SA_ONSTACK : 0;\n"
	"\tif (handler)\n"
	"\t\tsa.sa_sigaction = handler;\n"
	"\telse\n"
	"\t\tsa.sa_handler = SIG_DFL;\n"
	"\tif (handler && sigaltstack(&ss, NULL))\n"
	"\t\tdie(\"sigaltstack\");\n"
	"\tfor (size_t i = 0; i < SIGNAL_COUNT; i++)\n"
	"\t\tsigaction(signals[i], &sa, NULL);\n"
	"}\n"
	"\n"
	"static void set_timer(long ms)\n"
	"{\n"
	"\tstruct itimerval t = {{0, 0}, {ms / 1000, ms % 1000 * 1000}};\n"
	"\n"
	"\tsetitimer(ITIMER_REAL, &t, NULL);\n"
	"}\n"
	"\n"
	"/* After a fault, or a variant that broke the rule, the C code that\n"
	" * follows needs the direction flag clear. */\n"
	"static void after_call(void)\n"
	"{\n"
	"\tset_timer(0);\n"
	"\tcatch_signals(NULL);\n"
	"#if defined(__x86_64__) || defined(__i386__)\n"
	"\t__asm__ volatile(\"cld\");\n"
	"#endif\n"
	"}\n"
	"\n";

static const char report_text[] =
	"static int verdict(const char *cls, const char *detail)\n"
	"{\n"
	"\tprintf(\"verdict: %s: %s\\n\", cls, detail);\n"
	"\treturn 1;\n"
	"}\n"
	"\n"
	"/* \"src, 1 byte past the end (at src+17, len 17)\", as memgate words it. */\n"
	"static void where(char *out, size_t size, const char *name, const unsigned char *base,\n"
	"\t\t  const unsigned char *a)\n"
	"{\n"
	"\tptrdiff_t d = a - base;\n"
	"\n"
	"\tif (d < 0)\n"
	"\t\tsnprintf(out, size, \"%s, %td byte%s before it (at %s%td)\", name, -d,\n"
	"\t\t\t d == -1 ? \"\" : \"s\", name, d);\n"
	"\telse if ((size_t)d >= len)\n"
	"\t\tsnprintf(out, size, \"%s, %zu byte%s past the end (at %s+%td, len %zu)\", name,\n"
	"\t\t\t (size_t)d - len + 1, (size_t)d == len ? \"\" : \"s\", name, d, len);\n"
	"\telse\n"
	"\t\tsnprintf(out, size, \"%s, inside it (at %s+%td)\", name, name, d);\n"
	"}\n"
	"\n"
	"/* How far `a` is from a buffer: 0 inside it. */\n"
	"static size_t distance(const unsigned char *base, const unsigned char *a)\n"
	"{\n"
	"\tif (a < base)\n"
	"\t\treturn (size_t)(base - a);\n"
	"\treturn a >= base + len ? (size_t)(a - (base + len)) + 1 : 0;\n"
	"}\n"
	"\n"
	"static const char *signal_name(int signo)\n"
	"{\n"
	"\tswitch (signo) {\n"
	"\tcase SIGSEGV: return fault_gp ? \"SIGSEGV (general-protection fault)\" : \"SIGSEGV\";\n"
	"\tcase SIGBUS: return \"SIGBUS\";\n"
	"\tcase SIGILL: return \"SIGILL (illegal instruction)\";\n"
	"\tcase SIGFPE: return \"SIGFPE\";\n"
	"\tcase SIGTRAP: return \"SIGTRAP\";\n"
	"\tcase SIGABRT: return \"SIGABRT\";\n"
	"\tdefault: return \"a signal\";\n"
	"\t}\n"
	"}\n"
	"\n"
	"static int report_crash(const unsigned char *a)\n"
	"{\n"
	"\tptrdiff_t off = (const char *)fault_pc - (const char *)entry_address();\n"
	"\tchar pc[96], detail[256];\n"
	"\n"
	"\tif (off >= 0 && off < 0x10000)\n"
	"\t\tsnprintf(pc, sizeof pc, \"%s+0x%tx\", ENTRY_NAME, off);\n"
	"\telse\n"
	"\t\tsnprintf(pc, sizeof pc, \"%p\", fault_pc);\n"
	"\tif (fault_signo == SIGABRT)\n"
	"\t\tsnprintf(detail, sizeof detail, \"SIGABRT at pc %s\", pc);\n"
	"\telse\n"
	"\t\tsnprintf(detail, sizeof detail, \"%s at pc %s, address %p\",\n"
	"\t\t\t signal_name(fault_signo), pc, (void *)a);\n"
	"\treturn verdict(\"crash\", detail);\n"
	"}\n"
	"\n"
	"/* A fault on memory: where, relative to each buffer. */\n"
	"static void show_fault(const unsigned char *a)\n"
	"{\n"
	"\tif ((fault_signo != SIGSEGV || fault_gp) && fault_signo != SIGBUS)\n"
	"\t\treturn;\n"
	"\tprintf(\"fault:   %s, %s at %p: \", signal_name(fault_signo),\n"
	"\t       fault_write < 0 ? \"an access\" : fault_write ? \"a write\" : \"a read\", (void "
	"*)a);\n"
	"\tif (HAS_SRC)\n"
	"\t\tprintf(\"src%+td, \", a - src);\n"
	"\tprintf(\"dst%+td (len %zu)\\n\", a - dst, len);\n"
	"}\n"
	"\n"
	"static int report_fault(void)\n"
	"{\n"
	"\tconst unsigned char *a = fault_addr;\n"
	"\tint owned = a >= lo && a < hi;\n"
	"\tchar at[160], detail[256];\n"
	"\n"
	"\tshow_fault(a);\n"
	"\tif (fault_signo == SIGALRM) {\n"
	"\t\tsnprintf(detail, sizeof detail, \"no return within %d ms (timer)\", TIMEOUT_MS);\n"
	"\t\treturn verdict(\"timeout\", detail);\n"
	"\t}\n"
	"\tif (!owned || fault_signo != SIGSEGV || fault_gp || fault_write < 0)\n"
	"\t\treturn report_crash(a);\n"
	"\tif (fault_write && SRC_SEPARATE && distance(src, a) == 0) {\n"
	"\t\tsnprintf(detail, sizeof detail,\n"
	"\t\t\t \"wrote src+%td (len %zu); the source is read-only during the call\",\n"
	"\t\t\t a - src, len);\n"
	"\t\treturn verdict(\"src-modified\", detail);\n"
	"\t}\n"
	"\tif (HAS_SRC && distance(src, a) < distance(dst, a))\n"
	"\t\twhere(at, sizeof at, \"src\", src, a);\n"
	"\telse\n"
	"\t\twhere(at, sizeof at, \"dst\", dst, a);\n"
	"\treturn verdict(fault_write ? \"out-of-bounds-write\" : \"out-of-bounds-read\", at);\n"
	"}\n"
	"\n";

static const char compare_text[] =
	"static int hex(char *out, size_t size, const unsigned char *p, size_t from, size_t to,\n"
	"\t       size_t mark)\n"
	"{\n"
	"\tint used = 0;\n"
	"\n"
	"\tfor (size_t i = from; i < to && (size_t)used < size; i++)\n"
	"\t\tused += snprintf(out + used, size - (size_t)used, i == mark ? \" [%02x]\" : \" "
	"%02x\",\n"
	"\t\t\t\t p[i]);\n"
	"\treturn used;\n"
	"}\n"
	"\n"
	"/* The window bytes around index k, the first difference marked. */\n"
	"static void show_around(size_t k)\n"
	"{\n"
	"\tsize_t from = k > 8 ? k - 8 : 0, to = k + 9 < win_len ? k + 9 : win_len;\n"
	"\tchar got[128], wanted[128];\n"
	"\tptrdiff_t at = win + from - dst;\n"
	"\n"
	"\thex(got, sizeof got, win, from, to, k);\n"
	"\thex(wanted, sizeof wanted, want, from, to, k);\n"
	"\tprintf(\"  from dst%+td:\\n  got: %s\\n  want:%s\\n\", at, got, wanted);\n"
	"}\n"
	"\n"
	"static int red_zone(size_t k)\n"
	"{\n"
	"\tchar at[160], detail[256];\n"
	"\n"
	"\twhere(at, sizeof at, \"dst\", dst, win + k);\n"
	"\tsnprintf(detail, sizeof detail, \"%s: changed 0x%02x -> 0x%02x\", at, want[k], "
	"win[k]);\n"
	"\treturn verdict(\"out-of-bounds-write\", detail);\n"
	"}\n"
	"\n"
	"static int wrong_result(size_t first)\n"
	"{\n"
	"\tsize_t before = (size_t)(dst - win), i = first - before, wrong = 0;\n"
	"\tsize_t show = len - i < 8 ? len - i : 8;\n"
	"\tchar detail[320], got[64], wanted[64];\n"
	"\n"
	"\tfor (size_t k = first; k < before + len; k++)\n"
	"\t\twrong += win[k] != want[k];\n"
	"\thex(got, sizeof got, win, first, first + show, SIZE_MAX);\n"
	"\thex(wanted, sizeof wanted, want, first, first + show, SIZE_MAX);\n"
	"\tsnprintf(detail, sizeof detail,\n"
	"\t\t \"dst[%zu] got 0x%02x want 0x%02x (%zu of %zu bytes wrong); from dst[%zu] got%s \"\n"
	"\t\t \"want%s\",\n"
	"\t\t i, win[first], want[first], wrong, len, i, got, wanted);\n"
	"\tverdict(\"wrong-result\", detail);\n"
	"\tshow_around(first);\n"
	"\treturn 1;\n"
	"}\n"
	"\n"
	"/* \"dst+17\", \"src-3\" or the raw pointer. */\n"
	"static int wrong_return(void)\n"
	"{\n"
	"\tconst unsigned char *r = returned;\n"
	"\tptrdiff_t near = (ptrdiff_t)len + PAGE;\n"
	"\tchar detail[128];\n"
	"\n"
	"\tif (r - dst >= -near && r - dst <= near)\n"
	"\t\tsnprintf(detail, sizeof detail, \"returned dst%+td, want dst+%zu\", r - dst, (size_t)RETURNS_DST_PLUS);\n"
	"\telse if (HAS_SRC && r - src >= -near && r - src <= near)\n"
	"\t\tsnprintf(detail, sizeof detail, \"returned src%+td, want dst+%zu\", r - src, (size_t)RETURNS_DST_PLUS);\n"
	"\telse\n"
	"\t\tsnprintf(detail, sizeof detail, \"returned %p, want dst+%zu\", (void *)r, (size_t)RETURNS_DST_PLUS);\n"
	"\treturn verdict(\"wrong-return\", detail);\n"
	"}\n"
	"\n"
	"/* Red zones (and the rest of a memmove region) first, then dst, then the\n"
	" * return value. */\n"
	"static int report_bytes(void)\n"
	"{\n"
	"\tsize_t before = (size_t)(dst - win);\n"
	"\n"
	"\tfor (size_t k = 0; k < before; k++)\n"
	"\t\tif (win[k] != want[k])\n"
	"\t\t\treturn red_zone(k);\n"
	"\tfor (size_t k = win_len; k > before + len; k--)\n"
	"\t\tif (win[k - 1] != want[k - 1])\n"
	"\t\t\treturn red_zone(k - 1);\n"
	"\tfor (size_t k = before; k < before + len; k++)\n"
	"\t\tif (win[k] != want[k])\n"
	"\t\t\treturn wrong_result(k);\n"
	"\tif (RETURNS_DST && returned != (unsigned char *)dst + RETURNS_DST_PLUS)\n"
	"\t\treturn wrong_return();\n"
	"\tprintf(\"verdict: ok\\n\");\n"
	"\treturn 0;\n"
	"}\n"
	"\n"
	"int main(void)\n"
	"{\n"
	"\tset_up();\n"
	"\tprintf(\"case:    %s\\nmemgate: %s\\n\", case_text, memgate_verdict);\n"
	"\tif (strncmp(memgate_verdict, \"abi-violation\", 13) == 0)\n"
	"\t\tprintf(\"note:    a plain call cannot check the ABI: reproduce with memgate.\\n\"\n"
	"\t\t       \"         The broken rule may upset this program after the call.\\n\");\n"
	"\tfflush(stdout);\n"
	"\tcatch_signals(on_signal);\n"
	"\tif (sigsetjmp(escape, 1)) {\n"
	"\t\tafter_call();\n"
	"\t\texit(report_fault());\n"
	"\t}\n"
	"\tset_timer(TIMEOUT_MS);\n"
	"\treturned = call_variant(dst, src);\n"
	"\tafter_call();\n"
	"\t/* exit, not return: a variant that broke the ABI may have broken the\n"
	"\t * frames above this one. */\n"
	"\texit(report_bytes());\n"
	"}\n";

/* ---- what depends on the operation ---- */

struct op_text {
	const char *proto; /* the prototype, around the symbol */
	const char *proto_end;
	const char *call; /* call_variant's body, around the symbol */
	const char *call_end;
	const char *reference; /* the body of reference() */
	int has_src, returns_dst;
};

static const char copy_loop[] = "\tfor (size_t i = 0; i < len; i++)\n"
				"\t\tdst[i] = src[i];\n";

static const struct op_text op_texts[MG_OP_COUNT] = {
	[MG_MEMCPY] = {"void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
		       "(dst, src, len);\n", copy_loop, 1, 1},
	[MG_MEMPCPY] = {"void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
			"(dst, src, len);\n", copy_loop, 1, 1},
	[MG_MEMMOVE] = {"void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
			"(dst, src, len);\n",
			"\t/* As if through a temporary: whichever direction reads each\n"
			"\t * byte before it is overwritten. */\n"
			"\tif (dst < src)\n"
			"\t\tfor (size_t i = 0; i < len; i++)\n"
			"\t\t\tdst[i] = src[i];\n"
			"\telse\n"
			"\t\tfor (size_t i = len; i > 0; i--)\n"
			"\t\t\tdst[i - 1] = src[i - 1];\n",
			1, 1},
	[MG_MEMSET] = {"void *", "(void *dst, int c, size_t n);\n", "\t(void)src;\n\treturn ",
		       "(dst, VALUE, len);\n",
		       "\t(void)src;\n"
		       "\tfor (size_t i = 0; i < len; i++)\n"
		       "\t\tdst[i] = (unsigned char)VALUE;\n",
		       0, 1},
	[MG_COPY_PAGE] = {"void ", "(void *to, void *from);\n", "\t",
			  "(dst, (void *)src);\n"
			  "\treturn NULL;\n",
			  copy_loop, 1, 0},
	[MG_CLEAR_PAGE] = {"void ", "(void *page);\n", "\t(void)src;\n\t",
			   "(dst);\n"
			   "\treturn NULL;\n",
			   "\t(void)src;\n"
			   "\tfor (size_t i = 0; i < len; i++)\n"
			   "\t\tdst[i] = 0;\n",
			   0, 0},
};

/* ---- small emitters ---- */

static void emit_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *own_source(const struct mg_variant *v, char *buf, size_t size)
{
	static const char *const dirs[] = {"impls", "tests/bad"};
	static const char *const exts[] = {".S", ".c"};

	for (size_t d = 0; d < 2; d++)
		for (size_t x = 0; x < 2; x++) {
			snprintf(buf, size, "%s/%s/%s%s", dirs[d], v->arch, v->name, exts[x]);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	snprintf(buf, size, "<the file defining %s>", v->symbol);
	return buf;
}

static void emit_command(struct emit *e)
{
	const char *sources = getenv("MEMGATE_EMIT_SOURCES");
	size_t n = strlen(e->path);
	char own[512];

	if (!sources || !*sources)
		sources = own_source(e->c->variant, own, sizeof own);
	if (n > 2 && strcmp(e->path + n - 2, ".c") == 0)
		n -= 2;
	fprintf(e->f,
		" * Build and run, in memgate's tree (the flags keep a C variant's loops as\n"
		" * loops, as memgate builds it; clang ignores the second, with a warning;\n"
		" * an assembly variant includes harness/arch/asmdefs.h):\n *\n"
		" *\tcc -O2 -g -fno-builtin -fno-tree-loop-distribute-patterns -Iharness/arch -o %.*s %s %s\n"
		" *\t%s%.*s\n *\n"
		" * It prints the case, one verdict line (and the bytes around a wrong one),\n"
		" * and exits 1 if the bug shows, 0 if not.\n *\n",
		(int)n, e->path, e->path, sources, strchr(e->path, '/') ? "" : "./", (int)n,
		e->path);
}

/* "src+17 (1 byte past its end)" */
static void relative(FILE *f, const char *name, const unsigned char *base, size_t len,
		     const unsigned char *a)
{
	ptrdiff_t d = a - base;

	fprintf(f, "%s%+td ", name, d);
	if (d < 0)
		fprintf(f, "(%td byte%s before it)", -d, d == -1 ? "" : "s");
	else if ((size_t)d >= len)
		fprintf(f, "(%zu byte%s past its end)", (size_t)d - len + 1,
			(size_t)d == len ? "" : "s");
	else
		fputs("(inside it)", f);
}

/* The address of an out-of-bounds or src-modified verdict, which names it
 * relative to one buffer, relative to each buffer. */
static void emit_fault_address(struct emit *e)
{
	const struct mg_case *c = e->c;
	const struct mg_verdict *v = e->v;
	const unsigned char *a;

	if (!(v->has & MG_HAS_WHERE))
		return;
	a = (v->buffer == MG_BUFFER_SRC ? e->at.src : e->at.dst) + v->offset;
	/* A red-zone byte changed short of the guard page: not a fault. */
	fputs(v->cls == MG_OOB_WRITE && (v->has & MG_HAS_BYTE) ? " *   changed at: "
							       : " *   fault at: ",
	      e->f);
	if (mg_op_has_src(c->variant->op)) {
		relative(e->f, "src", e->at.src, c->len, a);
		fputs(", ", e->f);
	}
	relative(e->f, "dst", e->at.dst, c->len, a);
	fputs("\n", e->f);
}

static void emit_hex_row(FILE *f, const char *label, const unsigned char *p, size_t n, size_t mark)
{
	fprintf(f, " *   %s", label);
	for (size_t i = 0; i < n; i++)
		fprintf(f, i == mark ? " [%02x]" : " %02x", p[i]);
	fputc('\n', f);
}

/* The bytes around a wrong-result's first difference dst[i]. Before it, got
 * and want agree (or an earlier byte, or the red zone, would be named), so
 * the reference's bytes show them; from it on, the verdict holds the bytes
 * the variant wrote. */
static void emit_around(struct emit *e)
{
	const struct mg_case *c = e->c;
	const struct mg_verdict *v = e->v;
	size_t before = (size_t)(e->at.dst - e->at.win), i, k, n;
	unsigned char *want, got[16 + 8];

	if (v->cls != MG_WRONG_RESULT || !(v->has & MG_HAS_BYTE) || !v->got_run_len ||
	    v->index < 0 || (size_t)v->index >= c->len)
		return;
	i = (size_t)v->index;
	want = malloc(e->at.win_len);
	if (!want)
		fail("out of memory");
	memcpy(want, e->at.win, e->at.win_len);
	mg_call_reference(c->variant->op, want + before,
			  c->overlap ? want + (e->at.src - e->at.win) : e->at.src, c->value,
			  c->len);
	k = before + i < 8 ? before + i : 8; /* bytes shown before dst[i] */
	memcpy(got, want + before + i - k, k);
	n = v->got_run_len;
	memcpy(got + k, v->got_run, n);
	fprintf(e->f, " *   bytes from dst%+td, the first difference in [ ]:\n",
		(ptrdiff_t)i - (ptrdiff_t)k);
	emit_hex_row(e->f, "  got: ", got, k + n, k);
	emit_hex_row(e->f, "  want:", want + before + i - k, k + n, k);
	free(want);
}

static void emit_header(struct emit *e)
{
	const struct mg_case *c = e->c;
	const struct mg_variant *v = c->variant;
	char text[MG_DETAIL_MAX + 256];

	fprintf(e->f, "/* memgate repro: %s (%s, %s),\n * entry point %s\n *\n", v->name,
		mg_op_name(v->op), v->arch, v->symbol);
	mg_case_describe(c, text, sizeof text);
	fputs(" * case:    ", e->f);
	for (const char *p = text; *p; p++) /* a line per part */
		if (p[0] == ';' && p[1] == ' ') {
			fputs(";\n *         ", e->f);
		} else {
			fputc(*p, e->f);
		}
	fputs("\n", e->f);
	mg_case_replay(c, text, sizeof text);
	fprintf(e->f, " * replay:  %s\n *\n * What memgate saw:\n", text);
	fprintf(e->f, " *   verdict:  %s%s%s\n", mg_class_name(e->v->cls),
		e->v->cls == MG_OK ? "" : ": ", e->v->detail);
	if (e->v->cls == MG_OOB_READ || e->v->cls == MG_OOB_WRITE || e->v->cls == MG_SRC_MODIFIED)
		emit_fault_address(e);
	if (e->v->cls == MG_WRONG_RESULT)
		emit_around(e);
	fputs(" *\n", e->f);
	emit_command(e);
	fputs(notes_text, e->f);
	fputc('\n', e->f);
}

static void emit_case(struct emit *e)
{
	const struct mg_case *c = e->c;
	const struct op_text *t = &op_texts[c->variant->op];
	char text[MG_DETAIL_MAX + 256];

	fprintf(e->f,
		"/* The case. Offsets are from the start of the reservation, whose first\n"
		" * page is a guard page. */\n"
		"#define ARENA\t     ((size_t)%zu) /* as in memgate */\n"
		"#define SRC_OFF\t     %td\n"
		"#define DST_OFF\t     %td\n"
		"#define WIN_OFF\t     %td /* the compared window: dst, its red zones */\n"
		"#define HAS_SRC\t     %d\n"
		"#define SRC_SEPARATE %d /* the source has an arena (and bytes) of its own */\n"
		"#define RETURNS_DST  %d\n"
		"#define RETURNS_DST_PLUS %s /* mempcpy returns dst + len */\n"
		"#define VALUE\t     (%d) /* memset's int c */\n"
		"#define TIMEOUT_MS   %u /* memgate's watchdog */\n\n"
		"static const size_t len = %zu;\n"
		"static const size_t win_len = %zu;\n",
		e->sb->arena, e->at.src - e->base, e->at.dst - e->base, e->at.win - e->base,
		t->has_src, t->has_src && !c->overlap, t->returns_dst, c->variant->ret == MG_RET_DST_END ? "len" : "0", c->value,
		mg_timeout_for(c->len), c->len, e->at.win_len);
	mg_case_describe(c, text, sizeof text);
	fputs("static const char case_text[] = ", e->f);
	emit_string(e->f, text);
	snprintf(text, sizeof text, "%s%s%s", mg_class_name(e->v->cls),
		 e->v->cls == MG_OK ? "" : ": ", e->v->detail);
	fputs(";\nstatic const char memgate_verdict[] = ", e->f);
	emit_string(e->f, text);
	fputs(";\n\n", e->f);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Where in the pool a fill came from; checks that the generator written
 * into the program (pool_head) makes those bytes. */
static uint64_t pool_offset(struct emit *e, const unsigned char *p, size_t n)
{
	const unsigned char *hit = memmem(e->sb->pool, e->sb->pool_size, p, n);
	uint64_t off;

	if (!hit)
		fail("the fill of this case is not a slice of memgate's pool");
	off = (uint64_t)(hit - e->sb->pool);
	for (uint64_t k = off; k < off + n; k++)
		if ((unsigned char)(mg_mix64(POOL_SEED + (k / 8 + 1) * 0x9e3779b97f4a7c15ull) >>
				    (8 * (k % 8))) != p[k - off])
			fail("memgate's pool is not the one the program regenerates (see "
			     "sandbox.c)");
	return off;
}

static void emit_array(struct emit *e, const char *name, const unsigned char *p, size_t n)
{
	fprintf(e->f, "static const unsigned char %s_bytes[%zu] = {", name, n);
	for (size_t i = 0; i < n; i++)
		fprintf(e->f, "%s0x%02x,", i % 12 ? " " : "\n\t", p[i]);
	fprintf(e->f,
		"\n};\n\nstatic void fill_%s(unsigned char *to)\n{\n"
		"\tmemcpy(to, %s_bytes, sizeof %s_bytes);\n}\n\n",
		name, name, name);
}

static void emit_pool_fill(struct emit *e, const char *name, const unsigned char *p, size_t n)
{
	uint64_t off = pool_offset(e, p, n);

	if (!e->pool_used) {
		fprintf(e->f, "#define POOL_SEED 0x%" PRIx64 "ull\n", POOL_SEED);
		fputs(pool_head, e->f);
		e->pool_used = 1;
	}
	fprintf(e->f,
		"/* %zu bytes, too many to list: memgate cut them from its random pool at\n"
		" * offset %" PRIu64 ". They are made again here, and checked. */\n"
		"static void fill_%s(unsigned char *to)\n{\n"
		"\tpool_fill(to, %" PRIu64 "u, %zu, 0x%016" PRIx64 "ull, \"%s\");\n}\n\n",
		n, off, name, off, n, fnv1a(p, n), name);
}

/* The bytes memgate filled a buffer with: listed, or regenerated. */
static void emit_fill(struct emit *e, const char *name, const unsigned char *p, size_t n)
{
	if (n == 0)
		fprintf(e->f, "static void fill_%s(unsigned char *to)\n{\n\t(void)to;\n}\n\n",
			name);
	else if (n <= ARRAY_MAX)
		emit_array(e, name, p, n);
	else
		emit_pool_fill(e, name, p, n);
}

static void emit_op(struct emit *e)
{
	const struct op_text *t = &op_texts[e->c->variant->op];
	const char *sym = e->c->variant->symbol;

	fprintf(e->f,
		"/* The routine under test, from the file(s) in the build command. */\n"
		"%s%s%s#define ENTRY_NAME \"%s\"\n\n"
		"static const void *entry_address(void)\n{\n"
		"\treturn (const void *)(uintptr_t)%s;\n}\n\n"
		"static void *call_variant(unsigned char *dst, const unsigned char *src)\n{\n"
		"%s%s%s}\n\n",
		t->proto, sym, t->proto_end, sym, sym, t->call, sym, t->call_end);
	fprintf(e->f,
		"/* What the variant must do, one byte at a time (volatile: no compiler\n"
		" * turns it into a call of the routine it checks). */\n"
		"static void reference(volatile unsigned char *dst, const volatile unsigned "
		"char *src)\n{\n%s}\n\n",
		t->reference);
}

/* The reservation as sandbox.c maps it: [g] src below [g] dst [g] src above [g]. */
static void find_reservation(struct emit *e)
{
	const struct mg_sandbox *sb = e->sb;
	size_t step = sb->arena + MG_PAGE;

	e->base = sb->src_ro[MG_SRC_BELOW] - MG_PAGE;
	if (sb->dst != sb->src_ro[MG_SRC_BELOW] + step ||
	    sb->src_ro[MG_SRC_ABOVE] != sb->dst + step)
		fail("the sandbox's arenas are not laid out as this program expects");
}

void mg_emit_c(const char *path, const struct mg_case *c, const struct mg_verdict *v)
{
	struct emit e = {.path = path, .c = c, .v = v};
	int has_src = op_texts[c->variant->op].has_src;

	if (mg_case_is_huge(c))
		fail("a length over %zu (or --oracle) runs in memgate's huge-length check, which "
		     "a standalone program does not reproduce: use the replay command",
		     (size_t)MG_MAX_LEN);
	e.sb = mg_sandbox_get();
	find_reservation(&e);
	mg_check_layout(c, &e.at);
	e.f = fopen(path, "w");
	if (!e.f)
		fail("cannot write %s: %s", path, strerror(errno));
	partial = path;
	emit_header(&e);
	fputs(includes_text, e.f);
	emit_case(&e);
	emit_fill(&e, "src", e.at.src, has_src && !c->overlap ? c->len : 0);
	emit_fill(&e, "win", e.at.win, e.at.win_len);
	emit_op(&e);
	fputs(setup_text, e.f);
	fputs(signals_text, e.f);
	fputs(report_text, e.f);
	fputs(compare_text, e.f);
	if (ferror(e.f) | fclose(e.f))
		fail("cannot write %s: %s", path, strerror(errno));
	partial = NULL;
}
