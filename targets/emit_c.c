/* scripts/repro --emit-c: writes one case as a standalone C program that
 * needs nothing of memgate but the variant's source file (and, for a user
 * copy, memgate's exception-table emulation, harness/arch/ISA/extable.c).
 *
 * The program is the sections of targets/standalone.c (real C, compiled
 * and tested on its own; a user copy's ends with targets/standalone_user.c's
 * instead of its main, a case in threads with targets/standalone_threads.c's)
 * and the parts that depend on the case: a header
 * comment, the layout as offsets into the same reservation the sandbox
 * maps, the bytes memgate filled the buffers with, and the call (in the
 * variant's own register convention, if it has one: emit_convention.c)
 * and byte-loop reference of the variant's operation.
 *
 * The header's build command names the variant's source files: those in
 * $MEMGATE_EMIT_SOURCES (scripts/repro finds them, with the files they call
 * into), else impls/ARCH/NAME.{S,c} or tests/bad/ARCH/NAME.{S,c} (or
 * tests/bad/x86/, both x86 arches') if one exists here. */
#include "emit_c.h"
#include "emit_convention.h"
#include "abi.h"
#include "call.h"
#include "case.h"
#include "check.h"
#include "convention.h"
#include "cpu.h"
#include "huge.h"
#include "noreturn.h"
#include "outcome.h"
#include "rng.h"
#include "sandbox.h"
#include "table.h"
#include "thread.h"
#include "timeout.h"
#include "usercopy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The compiler and the flags that keep a C variant's byte loops as loops
 * of this build's arch, for the build line (Makefile); the run line's
 * runner is the replay lines' (emit_runner). */
#ifndef MG_EMIT_CC
#define MG_EMIT_CC "cc"
#endif
#ifndef MG_EMIT_FLAGS
#define MG_EMIT_FLAGS "-fno-builtin"
#endif

/* Buffers up to this size are written out as arrays; longer ones are
 * regenerated from memgate's random pool by the program. */
#define ARRAY_MAX ((size_t)64 << 10)
/* The seed of the sandbox's random pool (sandbox.c, make_pool: "memgate"),
 * as standalone.c's pool section defines it too. */
#define POOL_SEED ((uint64_t)0x6d656d67617465)

struct emit {
	FILE *f;
	const char *path;
	const struct mg_case *c;
	const struct mg_verdict *v;
	const struct mg_sandbox *sb;
	struct mg_layout at;
	unsigned char *prot; /* a user copy's PROT_NONE pages (NULL: none) */
	size_t prot_len;
	int user;	     /* a user copy (standalone_user.c's program) */
	int huge;	     /* a move of 2 GiB and more (standalone_huge.c's) */
	int flags;	     /* the call enters with every arithmetic flag set */
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

/* standalone_notes, _includes, _pool, _pool_fill, _setup, _signals, _report, _compare,
 * _bytes and _main: the sections of targets/standalone.c; standalone_user_notes
 * and _user, of targets/standalone_user.c; standalone_threads_notes and
 * _alone and _threads, of targets/standalone_threads.c; standalone_huge_notes,
 * _huge_setup and _huge, of targets/standalone_huge.c; made by
 * scripts/c-sections. */
#include "standalone_text.h"
#include "standalone_user_text.h"
#include "standalone_threads_text.h"
#include "standalone_huge_text.h"

/* ---- what depends on the operation ---- */

struct op_text {
	const char *returns; /* what call_variant returns */
	const char *proto;   /* the prototype, around the symbol */
	const char *proto_end;
	const char *call; /* call_variant's body, around the symbol */
	const char *call_end;
	const char *reference; /* the body of reference() */
	int has_src, returns_dst;
};

static const char copy_loop[] = "\tfor (size_t i = 0; i < len; i++)\n"
				"\t\tdst[i] = src[i];\n";
static const char zero_loop[] = "\t(void)src;\n"
				"\tfor (size_t i = 0; i < len; i++)\n"
				"\t\tdst[i] = 0;\n";
static const char count_type[] = "unsigned long ", copy_user_proto[] =
	"(void *to, const void *from, unsigned long n);\n";

static const struct op_text op_texts[MG_OP_COUNT] = {
	[MG_MEMCPY] = {"void *", "void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
		       "(dst, src, len);\n", copy_loop, 1, 1},
	[MG_MEMPCPY] = {"void *", "void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
			"(dst, src, len);\n", copy_loop, 1, 1},
	[MG_MEMMOVE] = {"void *", "void *", "(void *dst, const void *src, size_t n);\n", "\treturn ",
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
	[MG_MEMSET] = {"void *", "void *", "(void *dst, int c, size_t n);\n", "\t(void)src;\n\treturn ",
		       "(dst, VALUE, len);\n",
		       "\t(void)src;\n"
		       "\tfor (size_t i = 0; i < len; i++)\n"
		       "\t\tdst[i] = (unsigned char)VALUE;\n",
		       0, 1},
	[MG_COPY_PAGE] = {"void *", "void ", "(void *to, void *from);\n", "\t",
			  "(dst, (void *)src);\n"
			  "\treturn NULL;\n",
			  copy_loop, 1, 0},
	[MG_CLEAR_PAGE] = {"void *", "void ", "(void *page);\n", "\t(void)src;\n\t",
			   "(dst);\n"
			   "\treturn NULL;\n",
			   zero_loop, 0, 0},
	/* The user copies return the bytes not copied (standalone_user.c). */
	[MG_COPY_FROM_USER] = {count_type, count_type, copy_user_proto, "\treturn ",
			       "(dst, src, len);\n", copy_loop, 1, 0},
	[MG_COPY_TO_USER] = {count_type, count_type, copy_user_proto, "\treturn ",
			     "(dst, src, len);\n", copy_loop, 1, 0},
	[MG_CLEAR_USER] = {count_type, count_type, "(void *to, unsigned long n);\n",
			   "\t(void)src;\n\treturn ", "(dst, len);\n", zero_loop, 0, 0},
};

/* The three arguments of a call through at_stack_offset (below), as
 * uintptr_t; 0 for those the op does not take. */
static const char copy_args[] = "(uintptr_t)dst, (uintptr_t)src, len";
static const char *const stack_args[MG_OP_COUNT] = {
	[MG_MEMCPY] = copy_args,
	[MG_MEMPCPY] = copy_args,
	[MG_MEMMOVE] = copy_args,
	[MG_MEMSET] = "(uintptr_t)dst, (uintptr_t)VALUE, len",
	[MG_COPY_PAGE] = "(uintptr_t)dst, (uintptr_t)src, 0",
	[MG_CLEAR_PAGE] = "(uintptr_t)dst, 0, 0",
	[MG_COPY_FROM_USER] = copy_args,
	[MG_COPY_TO_USER] = copy_args,
	[MG_CLEAR_USER] = "(uintptr_t)dst, len, 0",
};

/* at_stack_offset(fn, a, b, c, offset) for this build's arch: calls
 * fn(a, b, c) with the stack pointer at the alignment memgate's case had
 * at the routine's entry (MG_ABI_STACK_AT_ENTRY), on a stack it realigns
 * at least 64 bytes below its own frame (a routine that writes above its
 * stack pointer, an abi-violation the program cannot show, does not take
 * the program's return address with it), and returns what fn returned. A C call promises
 * only the ABI's 16 bytes (4 on i386's kernel side), so a routine wrong
 * at one offset mod 64 needs this to show it. Empty where memgate varies
 * no stack offset.
 *
 * flags_set, right before its call_insn, enters the call with every
 * arithmetic flag set, as memgate's sampled calls do (the trampolines'
 * MG_ABI_SET_FLAGS), where the routine's failure depends on them; empty
 * where memgate sets none. */
#if defined(__x86_64__)
#define STACK_RULE "(rsp + 8) mod 64"
static const char stack_call[] =
	"\t\"push %rbp\\n\"\n"
	"\t\"mov %rsp, %rbp\\n\"\n"
	"\t\"sub $128, %rsp\\n\"\n"
	"\t\"and $-64, %rsp\\n\"\n"
	"\t\"add %r8, %rsp\\n\" /* the call's push makes it rsp + 8 */\n"
	"\t\"mov %rdi, %rax\\n\"\n"
	"\t\"mov %rsi, %rdi\\n\"\n"
	"\t\"mov %rdx, %rsi\\n\"\n"
	"\t\"mov %rcx, %rdx\\n\"\n"
	"\t\"call *%rax\\n\"\n"
	"\t\"mov %rbp, %rsp\\n\"\n"
	"\t\"pop %rbp\\n\"\n"
	"\t\"ret\\n\"\n";
static const char call_insn[] = "\t\"call *%rax\\n\"\n";
static const char flags_set[] = "\t\"pushfq\\n\"\n"
				"\t\"orq $0x8d5, (%rsp)\\n\" /* CF, PF, AF, ZF, SF, OF */\n"
				"\t\"popfq\\n\"\n";
#elif defined(__i386__)
#define STACK_RULE "(esp + 4) mod 64"
static const char stack_call[] =
	"\t\"push %ebp\\n\"\n"
	"\t\"mov %esp, %ebp\\n\"\n"
	"\t\"mov 24(%ebp), %ecx\\n\" /* offset */\n"
	"\t\"sub $192, %esp\\n\"\n"
	"\t\"and $-64, %esp\\n\"\n"
	"\t\"lea 12(%esp,%ecx), %esp\\n\" /* three pushes and the call's make it esp + 4 */\n"
	"\t\"push 20(%ebp)\\n\"\n"
	"\t\"push 16(%ebp)\\n\"\n"
	"\t\"push 12(%ebp)\\n\"\n"
	"\t\"call *8(%ebp)\\n\"\n"
	"\t\"mov %ebp, %esp\\n\"\n"
	"\t\"pop %ebp\\n\"\n"
	"\t\"ret\\n\"\n";
static const char call_insn[] = "\t\"call *8(%ebp)\\n\"\n";
static const char flags_set[] = "\t\"pushfl\\n\"\n"
				"\t\"orl $0x8d5, (%esp)\\n\" /* CF, PF, AF, ZF, SF, OF */\n"
				"\t\"popfl\\n\"\n";
#elif defined(__aarch64__)
#define STACK_RULE "sp mod 64"
static const char stack_call[] =
	"\t\"stp x29, x30, [sp, #-16]!\\n\"\n"
	"\t\"mov x29, sp\\n\"\n"
	"\t\"sub x9, sp, #128\\n\"\n"
	"\t\"and x9, x9, #-64\\n\"\n"
	"\t\"add sp, x9, x4\\n\"\n"
	"\t\"mov x9, x0\\n\"\n"
	"\t\"mov x0, x1\\n\"\n"
	"\t\"mov x1, x2\\n\"\n"
	"\t\"mov x2, x3\\n\"\n"
	"\t\"blr x9\\n\"\n"
	"\t\"mov sp, x29\\n\"\n"
	"\t\"ldp x29, x30, [sp], #16\\n\"\n"
	"\t\"ret\\n\"\n";
static const char call_insn[] = "\t\"blr x9\\n\"\n";
static const char flags_set[] = "\t\"mov x10, #0xf0000000\\n\"\n"
				"\t\"msr nzcv, x10\\n\" /* N, Z, C, V */\n";
#elif defined(__riscv) && __riscv_xlen == 64
#define STACK_RULE "sp mod 64"
static const char stack_call[] =
	"\t\"addi sp, sp, -16\\n\"\n"
	"\t\"sd ra, 8(sp)\\n\"\n"
	"\t\"sd s0, 0(sp)\\n\"\n"
	"\t\"mv s0, sp\\n\"\n"
	"\t\"addi t0, sp, -128\\n\"\n"
	"\t\"andi t0, t0, -64\\n\"\n"
	"\t\"add sp, t0, a4\\n\"\n"
	"\t\"mv t1, a0\\n\"\n"
	"\t\"mv a0, a1\\n\"\n"
	"\t\"mv a1, a2\\n\"\n"
	"\t\"mv a2, a3\\n\"\n"
	"\t\"jalr t1\\n\"\n"
	"\t\"mv sp, s0\\n\"\n"
	"\t\"ld s0, 0(sp)\\n\"\n"
	"\t\"ld ra, 8(sp)\\n\"\n"
	"\t\"addi sp, sp, 16\\n\"\n"
	"\t\"ret\\n\"\n";
static const char call_insn[] = "", flags_set[] = "";
#elif defined(__arm__)
#define STACK_RULE "sp mod 64"
static const char stack_call[] =
	"\t\"push {r4, r5, r11, lr}\\n\"\n"
	"\t\"mov r11, sp\\n\"\n"
	"\t\"ldr r4, [sp, #16]\\n\" /* the fifth argument: the offset */\n"
	"\t\"sub r5, sp, #128\\n\"\n"
	"\t\"bic r5, r5, #63\\n\"\n"
	"\t\"add sp, r5, r4\\n\"\n"
	"\t\"mov ip, r0\\n\"\n"
	"\t\"mov r0, r1\\n\"\n"
	"\t\"mov r1, r2\\n\"\n"
	"\t\"mov r2, r3\\n\"\n"
	"\t\"blx ip\\n\"\n"
	"\t\"mov sp, r11\\n\"\n"
	"\t\"pop {r4, r5, r11, pc}\\n\"\n";
static const char call_insn[] = "", flags_set[] = "";
#else
#define STACK_RULE ""
static const char stack_call[] = "", call_insn[] = "", flags_set[] = "";
#endif

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

/* The case as memgate describes it, and memgate's verdict, for the
 * program's first two lines. */
static void emit_case_texts(const struct emit *e)
{
	char text[MG_DETAIL_MAX + 256];

	mg_case_describe(e->c, text, sizeof text);
	fputs("static const char case_text[] = ", e->f);
	emit_string(e->f, text);
	snprintf(text, sizeof text, "%s%s%s", mg_class_name(e->v->cls),
		 e->v->cls == MG_OK ? "" : ": ", e->v->detail);
	fputs(";\nstatic const char memgate_verdict[] = ", e->f);
	emit_string(e->f, text);
	fputs(";\n\n", e->f);
}

/* Whether a program can set its thread's vector length: SVE's, with
 * prctl (Linux, Documentation/arm64/sve.rst). */
#if defined(__aarch64__)
#define SVE_VL_SETTABLE 1
#else
#define SVE_VL_SETTABLE 0
#endif

/* Whether this arch has memgate's emulation of the kernel's exception
 * table (harness/arch/ISA/extable.c), which a user copy's program links. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#define EXTABLE_EMULATED 1
#else
#define EXTABLE_EMULATED 0
#endif

/* harness/arch/ISA/, where the arch's exception-table emulation is. */
static const char *isa_of(const char *arch)
{
	return strcmp(arch, "x86_64") == 0 || strcmp(arch, "i386") == 0 ? "x86" : arch;
}

/* The file named NAME.S or NAME.c in impls/ARCH or tests/bad/ARCH (or
 * tests/bad/x86/, both x86 arches'), in buf; NULL if none. */
static const char *file_of(const char *arch, const char *name, char *buf, size_t size)
{
	static const char *const dirs[] = {"impls", "tests/bad"};
	static const char *const exts[] = {".S", ".c"};
	const char *const arches[] = {arch, isa_of(arch)};

	for (size_t d = 0; d < 2; d++)
		for (size_t a = 0; a < 2; a++)
			for (size_t x = 0; x < 2; x++) {
				snprintf(buf, size, "%s/%s/%s%s", dirs[d], arches[a], name, exts[x]);
				if (access(buf, R_OK) == 0)
					return buf;
			}
	return NULL;
}

/* Adds to `list` (a space-separated list of at most `size` bytes) the
 * files of the mg_ARCH_NAME routines `path` names, each NAME's file
 * (impls/ and tests/bad/ name a file after its routine), and theirs in
 * turn: the files a variant calls into, as scripts/repro finds them. */
static void add_callees(const char *arch, const char *path, char *list, size_t size)
{
	char prefix[32], word[128], file[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int ch;

	if (!f)
		return;
	snprintf(prefix, sizeof prefix, "mg_%s_", arch);
	do {
		ch = fgetc(f);
		if (ch != EOF && (ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
				  (ch >= 'A' && ch <= 'Z'))) {
			if (n + 1 < sizeof word)
				word[n++] = (char)ch;
			continue;
		}
		word[n] = '\0';
		n = 0;
		if (strncmp(word, prefix, strlen(prefix)) != 0 ||
		    !file_of(arch, word + strlen(prefix), file, sizeof file))
			continue;
		if (strstr(list, file) || strlen(list) + strlen(file) + 2 > size)
			continue;
		strcat(list, " ");
		strcat(list, file);
		add_callees(arch, file, list, size);
	} while (ch != EOF);
	fclose(f);
}

/* The variant's own file and those it calls into, for the build line. */
static const char *own_source(const struct mg_variant *v, char *buf, size_t size)
{
	char own[256];

	if (!file_of(v->arch, v->name, own, sizeof own)) {
		snprintf(buf, size, "<the file defining %s>", v->symbol);
		return buf;
	}
	snprintf(buf, size, "%s", own);
	add_callees(v->arch, own, buf, size);
	return buf;
}

/* The build's flags for this variant: a riscv64 routine that declares V
 * or a bit-manipulation extension is assembled for what it declares (as
 * the Makefile's RVV_ASFLAGS for it), and runs only where the CPU has
 * it; an armhf one that declares NEON or VFPD32 likewise. */
static const char *arch_flags(const struct mg_variant *v)
{
#if defined(__riscv)
	static char flags[160];

	if (!(v->features & (MG_FEAT_V | MG_FEAT_ZBA | MG_FEAT_ZBB | MG_FEAT_ZBS)))
		return MG_EMIT_FLAGS;
	snprintf(flags, sizeof flags, "-march=rv64gc%s%s%s%s %s", v->features & MG_FEAT_V ? "v" : "",
		 v->features & MG_FEAT_ZBA ? "_zba" : "", v->features & MG_FEAT_ZBB ? "_zbb" : "",
		 v->features & MG_FEAT_ZBS ? "_zbs" : "", MG_EMIT_FLAGS);
	return flags;
#elif defined(__arm__)
	/* armhf: built for VFPv3-D16 unless it declares NEON or d16-d31 (as
	 * the gate builds it: the last -mfpu wins). */
	if (v->features & MG_FEAT_NEON)
		return MG_EMIT_FLAGS " -mfpu=neon";
	if (v->features & MG_FEAT_VFPD32)
		return MG_EMIT_FLAGS " -mfpu=vfpv3";
	return MG_EMIT_FLAGS;
#else
	(void)v;
	return MG_EMIT_FLAGS;
#endif
}

/* The run line's runner: this build's (qemu-user, or none), the one the
 * case's CPU model needs (MEMGATE_RUNNER, as scripts/repro sets it for a
 * model only a newer qemu has), and that model (MEMGATE_CPU_MODEL): a
 * riscv64 routine wrong at VLEN 256 alone passes under qemu's default. */
static void emit_runner(FILE *f)
{
	const char *runner = mg_replay_runner();

	if (!*runner)
		return;
	fputs(runner, f);
	if (mg_cpu_model())
		fprintf(f, " -cpu %s", mg_cpu_model());
	fputc(' ', f);
}

/* The build and run lines. The routine's files are $MEMGATE_EMIT_SOURCES
 * (scripts/repro: the variant's files, or the objects of a gate build's,
 * which the commands in $MEMGATE_EMIT_PREPARE compile from the user's own
 * files as the gate compiled them, before the program's compile). */
static void emit_command(struct emit *e)
{
	const char *sources = getenv("MEMGATE_EMIT_SOURCES");
	const char *prepare = getenv("MEMGATE_EMIT_PREPARE");
	size_t n = strlen(e->path);
	char own[1024];
	char emulation[160] = "";

	if (!sources || !*sources)
		sources = own_source(e->c->variant, own, sizeof own);
	if (!prepare)
		prepare = "";
	if (n > 2 && strcmp(e->path + n - 2, ".c") == 0)
		n -= 2;
	if (e->user)
		snprintf(emulation, sizeof emulation,
			 " -Iharness/engine -Iharness/arch/%s harness/arch/%s/extable.c",
			 isa_of(e->c->variant->arch), isa_of(e->c->variant->arch));
	fprintf(e->f,
		" * Build and run, in memgate's tree (the flags keep a C variant's loops as\n"
		" * loops, as memgate builds it; an assembly variant includes\n"
		" * harness/arch/asmdefs.h%s)%s:\n *\n"
		" *\t%s%s -O2 -g %s -Iharness/arch -o %.*s %s%s %s%s\n"
		" *\t",
		e->user ? "; a user copy's\n * program builds memgate's exception-table emulation in" : "",
		*prepare ? ".\n * The routine's own files are compiled first, as the gate compiled them,\n"
			   " * and its symbols renamed as the gate renamed them (mg_gate_NAME)"
			 : "",
		prepare, MG_EMIT_CC, arch_flags(e->c->variant), (int)n, e->path, e->path, emulation,
		sources, e->c->threads ? " -pthread" : "");
	emit_runner(e->f);
	fprintf(e->f,
		"%s%.*s\n *\n"
		" * It prints the case, one verdict line%s,\n"
		" * and exits 1 if the bug shows, 0 if not.\n *\n",
		strchr(e->path, '/') ? "" : "./", (int)n, e->path,
		e->huge ? "" : " (and the bytes around a wrong one)");
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

/* How the program runs: the notes of its fixed part, those of threads
 * (standalone_threads.c) before the comment's end. */
static void emit_notes(struct emit *e)
{
	const char *notes = e->huge ? standalone_huge_notes
			    : e->user ? standalone_user_notes
				      : standalone_notes;
	size_t n = strlen(notes);

	if (e->c->threads && n >= 4 && strcmp(notes + n - 4, " */\n") == 0) {
		fwrite(notes, 1, n - 4, e->f);
		notes = standalone_threads_notes;
	}
	fputs(notes, e->f);
	fputc('\n', e->f);
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
	/* Both read the sandbox's layout, which a huge case has not. */
	if (!e->huge && (e->v->cls == MG_OOB_READ || e->v->cls == MG_OOB_WRITE ||
			 e->v->cls == MG_SRC_MODIFIED))
		emit_fault_address(e);
	if (!e->huge && e->v->cls == MG_WRONG_RESULT)
		emit_around(e);
	fputs(" *\n", e->f);
	emit_command(e);
	emit_notes(e);
}

static void emit_case(struct emit *e)
{
	const struct mg_case *c = e->c;
	const struct op_text *t = &op_texts[c->variant->op];

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
		mg_case_timeout_ms(c), c->len, e->at.win_len);
	if (e->user)
		fprintf(e->f,
			"#define USER_IS_SRC  %d /* copy_from_user: the user buffer is src */\n"
			"#define IS_CLEAR_USER %d\n"
			"#define FAULT_AT     (%ld) /* the user byte that starts its PROT_NONE pages (-1: none) */\n"
			"#define PROT_LEN     ((size_t)%zu)\n\n",
			mg_user_is_src(c->variant->op), c->variant->op == MG_CLEAR_USER,
			e->prot ? (long)c->fault_at : -1L, e->prot_len);
	emit_case_texts(e);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Where in the pool a fill came from; checks that the generator written
 * into the program (standalone_pool) makes those bytes. */
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
		fprintf(e->f, "%s%s", standalone_pool, standalone_pool_fill);
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

/* The function that calls the routine: call_variant, or, where the case
 * has a floating-point environment of its own, call_in_env, which
 * call_variant calls in it (emit_fpenv). */
static const char *call_name(const struct emit *e)
{
	return e->c->fpenv ? "call_in_env" : "call_variant";
}

/* The functions that enter the case's floating-point environment and put
 * the program's own back, and call_variant between them. */
static void emit_fpenv(struct emit *e, const struct op_text *t)
{
	uint64_t w[MG_ABI_FPENV_WORDS];
	char text[256];

	mg_abi_fpenv_words(e->c->fpenv, w);
	mg_abi_fpenv_describe(e->c->fpenv, text, sizeof text);
	fprintf(e->f,
		"/* The floating-point environment memgate's case entered with, %s:\n"
		" * %s. The call enters with it; the program's own is put back after. */\n",
		mg_abi_fpenv_name(e->c->fpenv), text);
#if defined(__x86_64__) || defined(__i386__)
	fprintf(e->f,
		"static const unsigned char fpenv_x87[28] = {0x%02x, 0x%02x, 0, 0, 0x%02x, 0x%02x, "
		"0, 0, 0xff, 0xff};\n"
		"static unsigned char saved_x87[28];\n\n",
		(unsigned)(w[1] & 0xff), (unsigned)(w[1] >> 8 & 0xff), (unsigned)(w[2] & 0xff),
		(unsigned)(w[2] >> 8 & 0xff));
	if (w[0] != MG_ABI_NO_MXCSR)
		fprintf(e->f,
			"static const unsigned int fpenv_mxcsr = 0x%04x;\n"
			"static unsigned int saved_mxcsr;\n\n",
			(unsigned)w[0]);
	fprintf(e->f,
		"static void enter_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"fnstenv %%0\\n\\tfldenv %%1\" : \"=m\"(saved_x87) : "
		"\"m\"(fpenv_x87) : \"memory\");\n%s}\n\n"
		"static void leave_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"fnclex\\n\\tfldenv %%0\" : : \"m\"(saved_x87) : \"memory\");\n%s}\n\n",
		w[0] != MG_ABI_NO_MXCSR ? "\t__asm__ volatile(\"stmxcsr %0\\n\\tldmxcsr %1\" : "
					  "\"=m\"(saved_mxcsr) : \"m\"(fpenv_mxcsr) : \"memory\");\n"
					: "",
		w[0] != MG_ABI_NO_MXCSR
			? "\t__asm__ volatile(\"ldmxcsr %0\" : : \"m\"(saved_mxcsr) : \"memory\");\n"
			: "");
#elif defined(__aarch64__)
	fprintf(e->f,
		"static uint64_t saved_fpcr, saved_fpsr;\n\n"
		"static void enter_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"mrs %%0, fpcr\\n\\tmrs %%1, fpsr\" : \"=r\"(saved_fpcr), "
		"\"=r\"(saved_fpsr));\n"
		"\t__asm__ volatile(\"msr fpcr, %%0\\n\\tmsr fpsr, %%1\" : : \"r\"((uint64_t)0x%" PRIx64
		"), \"r\"((uint64_t)0x%" PRIx64 ") : \"memory\");\n}\n\n"
		"static void leave_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"msr fpcr, %%0\\n\\tmsr fpsr, %%1\" : : \"r\"(saved_fpcr), "
		"\"r\"(saved_fpsr) : \"memory\");\n}\n\n",
		w[0], w[1]);
#elif defined(__riscv)
	fprintf(e->f,
		"#include <sys/auxv.h>\n\n"
		"/* vcsr (0x00f: vxrm, vxsat) only where the CPU has V. */\n"
		"static unsigned long saved_frm, saved_fflags, saved_vcsr;\n\n"
		"static int has_v(void)\n{\n"
		"\treturn (getauxval(AT_HWCAP) >> ('V' - 'A')) & 1;\n}\n\n"
		"static void enter_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"frrm %%0\\n\\tfrflags %%1\" : \"=r\"(saved_frm), "
		"\"=r\"(saved_fflags));\n"
		"\tif (has_v())\n"
		"\t\t__asm__ volatile(\"csrr %%0, 0x00f\\n\\tcsrw 0x00f, %%1\" : \"=&r\"(saved_vcsr) : "
		"\"r\"(0x%" PRIx64 "ul) : \"memory\");\n"
		"\t__asm__ volatile(\"fsrm %%0\\n\\tfsflags %%1\" : : \"r\"(0x%" PRIx64 "ul), "
		"\"r\"(0x%" PRIx64 "ul) : \"memory\");\n}\n\n"
		"static void leave_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"fsrm %%0\\n\\tfsflags %%1\" : : \"r\"(saved_frm), "
		"\"r\"(saved_fflags) : \"memory\");\n"
		"\tif (has_v())\n"
		"\t\t__asm__ volatile(\"csrw 0x00f, %%0\" : : \"r\"(saved_vcsr) : \"memory\");\n}\n\n",
		w[2] << 1 | w[3], w[0], w[1]);
#elif defined(__arm__)
	fprintf(e->f,
		"static unsigned int saved_fpscr;\n\n"
		"static void enter_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"vmrs %%0, fpscr\" : \"=r\"(saved_fpscr));\n"
		"\t__asm__ volatile(\"vmsr fpscr, %%0\" : : \"r\"(0x%08xu) : \"memory\");\n}\n\n"
		"static void leave_fpenv(void)\n{\n"
		"\t__asm__ volatile(\"vmsr fpscr, %%0\" : : \"r\"(saved_fpscr) : \"memory\");\n}\n\n",
		(unsigned)w[0]);
#endif
	fprintf(e->f,
		"static %scall_variant(unsigned char *dst, const unsigned char *src)\n{\n"
		"\t%sreturned;\n\n"
		"\tenter_fpenv();\n"
		"\treturned = call_in_env(dst, src);\n"
		"\tleave_fpenv();\n"
		"\treturn returned;\n}\n\n",
		t->returns, t->returns);
}

/* at_stack_offset's instructions, with the flags set before its call when
 * the case needs them. */
static void emit_stack_text(struct emit *e)
{
	const char *at = e->flags && *call_insn ? strstr(stack_call, call_insn) : NULL;

	if (!at) {
		fputs(stack_call, e->f);
		return;
	}
	fwrite(stack_call, 1, (size_t)(at - stack_call), e->f);
	fputs(flags_set, e->f);
	fputs(at, e->f);
}

/* The call at the case's stack offset, through at_stack_offset (and with
 * the arithmetic flags set, where the case needs them). */
static void emit_stack_call(struct emit *e, const struct op_text *t, const char *sym)
{
	size_t type_len = strlen(t->returns);
	int returns = strcmp(t->proto, "void ") != 0;

	while (type_len && t->returns[type_len - 1] == ' ')
		type_len--;
	fprintf(e->f,
		"/* The stack pointer's alignment at the routine's entry, as memgate's\n"
		" * case had it: %s = STACK_OFFSET, where a C call promises\n"
		" * only the ABI's alignment. at_stack_offset(fn, a, b, c, offset) calls\n"
		" * fn(a, b, c) on a stack it realigns below its own frame, and returns\n"
		" * what fn returned.%s */\n"
		"#define STACK_OFFSET %u\n"
		"uintptr_t at_stack_offset(uintptr_t fn, uintptr_t a, uintptr_t b, uintptr_t c, "
		"uintptr_t offset);\n"
		"__asm__(\".pushsection .text\\n\"\n"
		"\t\".globl at_stack_offset\\n\"\n"
		"\t\"at_stack_offset:\\n\"\n",
		STACK_RULE,
		e->flags ? "\n * The call enters with every arithmetic flag set, as memgate's\n"
			   " * did: the routine's failure depends on them, which the ABI\n"
			   " * leaves undefined at entry."
			 : "",
		e->c->stack_offset);
	emit_stack_text(e);
	fprintf(e->f,
		"\t\".popsection\\n\");\n\n"
		"static %s%s(unsigned char *dst, const unsigned char *src)\n{\n",
		t->returns, call_name(e));
	if (t->has_src == 0)
		fputs("\t(void)src;\n", e->f);
	if (returns)
		fprintf(e->f, "\treturn (%.*s)at_stack_offset((uintptr_t)%s, %s, STACK_OFFSET);\n}\n\n",
			(int)type_len, t->returns, sym, stack_args[e->c->variant->op]);
	else
		fprintf(e->f,
			"\tat_stack_offset((uintptr_t)%s, %s, STACK_OFFSET);\n"
			"\treturn NULL;\n}\n\n",
			sym, stack_args[e->c->variant->op]);
}

/* call_variant with the case's tagged pointers: aarch64 ignores an
 * address's top byte, and Linux lets user code set it. */
static void emit_tagged_call(struct emit *e, const struct op_text *t, const char *sym)
{
	fprintf(e->f,
		"/* memgate's case passed tagged pointers: TAG in the top byte of dst's,\n"
		" * SRC_TAG in src's (aarch64 ignores the top byte; Linux lets user code\n"
		" * set it: Documentation/arm64/tagged-pointers.rst). tags_on is 0 for\n"
		" * the untagged call of say_untagged. */\n"
		"#define TAG\t0x%02x\n"
		"#define SRC_TAG 0x%02x\n"
		"static int tags_on = 1;\n\n"
		"static uintptr_t tag_bits(unsigned tag)\n{\n"
		"\treturn tags_on ? (uintptr_t)tag << 56 : 0;\n}\n\n"
		"static void *call_variant(unsigned char *dst, const unsigned char *src)\n{\n"
		"\tvoid *r;\n\n%s"
		"\tr = %s((void *)((uintptr_t)dst | tag_bits(TAG)), %s, len);\n"
		"\t/* Compared untagged: the tag comes off as it was put on (an untagged\n"
		"\t * return gets it, and is wrong, as memgate says). */\n"
		"\treturn (void *)((uintptr_t)r ^ tag_bits(TAG));\n}\n\n",
		e->c->tag, mg_src_tag(e->c), t->has_src ? "" : "\t(void)src;\n", sym,
		t->has_src ? "(const void *)((uintptr_t)src | tag_bits(SRC_TAG))" : "VALUE");
}

/* say_untagged: the case's call again untagged, in a child: memgate's
 * verdict ends with what it does so (check.c, blame_tag). */
static void emit_say_untagged(struct emit *e)
{
	fputs("static void say_untagged(void)\n{\n"
	      "\tstatic char tail[256];\n"
	      "\tint passes;\n\n"
	      "\ttags_on = 0;\n"
	      "\tpasses = passes_in_child(case_alone, NULL);\n"
	      "\ttags_on = 1;\n"
	      "\tif (!passes)\n"
	      "\t\treturn;\n"
	      "\tsnprintf(tail, sizeof tail,\n"
	      "\t\t \"; with its pointers tagged (top byte 0x%02x dst, 0x%02x src) it fails, \"\n"
	      "\t\t \"untagged it passes: the top byte of an address is ignored, and a caller \"\n"
	      "\t\t \"may set it (AAPCS64 6.4.1, Linux tagged-pointers.rst)\",\n"
	      "\t\t TAG, SRC_TAG);\n"
	      "\tverdict_tail = tail;\n}\n\n",
	      e->f);
}

/* set_vl: the case's SVE vector length, which is the thread's (Linux,
 * Documentation/arm64/sve.rst), set before the call, after the call at
 * the start-up length is made in a child: memgate's verdict ends with
 * what it does there (check.c, blame_vl). */
static void emit_set_vl(struct emit *e)
{
	fprintf(e->f,
		"#include <sys/prctl.h>\n\n"
		"/* memgate's case ran the routine with an SVE vector length of VL bytes,\n"
		" * which is the thread's (prctl PR_SVE_SET_VL). */\n"
		"#define VL %u\n\n"
		"static void set_vl(void)\n{\n"
		"\tstatic char tail[256];\n"
		"\tint start = prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK;\n\n"
		"\tif (passes_in_child(case_alone, NULL)) {\n"
		"\t\tsnprintf(tail, sizeof tail,\n"
		"\t\t\t \"; with a vector length of %%d bytes it fails, with %%d it passes: it \"\n"
		"\t\t\t \"assumes a vector length, which is the thread's, any the CPU supports \"\n"
		"\t\t\t \"(Linux, Documentation/arm64/sve.rst)\",\n"
		"\t\t\t VL, start);\n"
		"\t\tverdict_tail = tail;\n\t}\n"
		"\tif (prctl(PR_SVE_SET_VL, VL) < 0 || (prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK) != VL)\n"
		"\t\tdie(\"prctl(PR_SVE_SET_VL): this CPU has not the case's vector length\");\n}\n\n",
		e->c->vl);
}

static void emit_op(struct emit *e)
{
	const struct op_text *t = &op_texts[e->c->variant->op];
	const char *sym = e->c->variant->symbol;

	if (mg_variant_convention(e->c->variant)) {
		mg_emit_convention_call(e->f, e->c->variant, t->returns);
	} else {
		fprintf(e->f,
			"/* The routine under test, from the file(s) in the build command. */\n"
			"%s%s%s#define ENTRY_NAME \"%s\"\n\n"
			"static const void *entry_address(void)\n{\n"
			"\treturn (const void *)(uintptr_t)%s;\n}\n\n",
			t->proto, sym, t->proto_end, sym, sym);
		if (e->c->stack_offset || e->flags)
			emit_stack_call(e, t, sym);
		else if (e->c->tag)
			emit_tagged_call(e, t, sym);
		else
			fprintf(e->f,
				"static %s%s(unsigned char *dst, const unsigned char *src)\n{\n"
				"%s%s%s}\n\n",
				t->returns, call_name(e), t->call, sym, t->call_end);
	}
	if (e->c->fpenv)
		emit_fpenv(e, t);
	if (e->huge) /* its checks know the bytes (standalone_huge.c) */
		return;
	fprintf(e->f,
		"/* What the variant must do, one byte at a time (volatile: no compiler\n"
		" * turns it into a call of the routine it checks). */\n"
		"static void reference(volatile unsigned char *dst, const volatile unsigned "
		"char *src)\n{\n%s}\n\n",
		t->reference);
}

/* The case of a move of 2 GiB and more within one buffer, as huge.c's
 * check_one_buffer places it in its region (mg_huge_one_region). */
static void emit_huge_case(struct emit *e)
{
	const struct mg_case *c = e->c;
	size_t size, d = (size_t)labs(c->dist), span = c->len + d, src_off;
	unsigned char *base = mg_huge_one_region(&size), *lower;

	if (!base)
		fail("this process has no room for the 2 GiB+ region to place the case in");
	lower = mg_place_buffer(base, base + size, 0, span,
				c->dist > 0 ? c->src_align : c->dst_align, c->place);
	src_off = (size_t)(lower - base) + (c->dist > 0 ? 0 : d);
	fprintf(e->f,
		"/* The case: a memmove of len bytes within one region of REGION_SIZE\n"
		" * bytes, at memgate's offsets in it. */\n"
		"#define REGION_SIZE    ((size_t)%zu)\n"
		"#define MEMGATE_REGION ((uintptr_t)0x%" PRIxPTR ") /* where memgate's was */\n"
		"#define LOWER_OFF      ((size_t)%zu) /* the span's start: src or dst */\n"
		"#define SPAN\t       ((size_t)%zu) /* len + |dst - src| */\n"
		"#define SRC_OFF\t       ((size_t)%zu)\n"
		"#define DST_OFF\t       ((size_t)%zu)\n"
		"#define SEED\t       ((uint64_t)0x%" PRIx64 "u) /* where the window bytes start in the pool */\n"
		"#define POOL_SIZE      ((uint64_t)%zu)\n"
		"#define HAS_SRC\t       1\n"
		"#define SRC_SEPARATE   0 /* src and dst are one buffer */\n"
		"#define TIMEOUT_MS     %u /* memgate's watchdog */\n\n"
		"static const size_t len = %zu;\n",
		size, (uintptr_t)base, (size_t)(lower - base), span, src_off,
		src_off + (size_t)c->dist, c->seed, e->sb->pool_size, mg_case_timeout_ms(c), c->len);
	emit_case_texts(e);
}

/* The program of a huge case: standalone_huge.c's, around the case. */
static void emit_huge(struct emit *e)
{
	emit_header(e);
	fputs(standalone_includes, e->f);
	fputs(standalone_pool, e->f);
	emit_huge_case(e);
	emit_op(e);
	fputs(standalone_huge_setup, e->f);
	fputs(standalone_signals, e->f);
	fputs(standalone_report, e->f);
	fputs(standalone_huge, e->f);
}

/* `text` with memgate's case constant VALUE as the parameter `value`: a
 * worker's call and reference take their own. */
static void put_with_value(FILE *f, const char *text)
{
	for (const char *at; (at = strstr(text, "VALUE")); text = at + 5) {
		fwrite(text, 1, (size_t)(at - text), f);
		fputs("value", f);
	}
	fputs(text, f);
}

/* One worker's calls, as thread.c's draw_call drew them for it. */
static void emit_worker_calls(struct emit *e, unsigned index)
{
	struct mg_threads_call tc;

	fprintf(e->f, "\t{ /* thread %u */\n", index + 1);
	for (unsigned r = 0; r < MG_THREADS_ROUNDS; r++) {
		if (mg_threads_call(e->c, index, r, &tc) != 0)
			fail("cannot map a worker's buffers");
		fprintf(e->f, "\t\t{%zu, %d, %d, %zu, %zu, %zu, %zu, %zu, 0x%016" PRIx64 "ull, ",
			tc.call.len, tc.call.value, tc.call.overlap, tc.src_off, tc.dst_off,
			tc.lo_off, tc.hi_off,
			e->c->variant->ret == MG_RET_DST_END ? tc.call.len : (size_t)0,
			tc.fill_state);
		emit_string(e->f, tc.shape);
		fputs("},\n", e->f);
	}
	fputs("\t},\n", e->f);
}

/* The workers of a case in threads (standalone_threads.c): their calls,
 * and the routine and its reference at a call's own length and value. */
static void emit_threads(struct emit *e)
{
	const struct op_text *t = &op_texts[e->c->variant->op];

	fprintf(e->f,
		"/* The case ran in %u threads at once: this one, and %u workers that\n"
		" * call the routine on buffers of their own with the calls memgate's\n"
		" * workers drew (harness/engine/thread.c), ROUNDS each, in a mapping of\n"
		" * REGION-byte regions: offsets are from its start. */\n"
		"#define THREADS %uu\n"
		"#define ROUNDS  %uu\n"
		"#define REGION  ((size_t)%zu)\n\n"
		"struct call {\n"
		"\tsize_t len;\n"
		"\tint value;   /* memset's c */\n"
		"\tint overlap; /* memmove's one buffer, in the destination region */\n"
		"\tsize_t src_off, dst_off;\n"
		"\tsize_t lo_off, hi_off; /* the compared window: dst, its red zones */\n"
		"\tsize_t ret_off;        /* what it returns, from dst */\n"
		"\tuint64_t fill;         /* the generator state its bytes come from */\n"
		"\tconst char *shape;     /* its shape in memgate's verdict, if not the case's */\n"
		"};\n\n"
		"static const struct call calls[THREADS - 1][ROUNDS] = {\n",
		e->c->threads, e->c->threads - 1, e->c->threads, MG_THREADS_ROUNDS,
		MG_THREADS_REGION);
	for (unsigned k = 1; k < e->c->threads; k++)
		emit_worker_calls(e, k);
	fprintf(e->f,
		"};\n\n"
		"/* A worker's call and reference, at the call's length and value. */\n"
		"static %scall_at(unsigned char *dst, const unsigned char *src, size_t len, int value)\n"
		"{\n\t(void)value;\n",
		t->returns);
	put_with_value(e->f, t->call);
	fputs(e->c->variant->symbol, e->f);
	put_with_value(e->f, t->call_end);
	fputs("}\n\n"
	      "static void reference_at(volatile unsigned char *dst, const volatile unsigned char *src,\n"
	      "\t\t\t size_t len, int value)\n{\n\t(void)value;\n",
	      e->f);
	put_with_value(e->f, t->reference);
	fputs("}\n\n", e->f);
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

/* What of the case a standalone program does not create: it calls the
 * variant once, directly, on buffers in the reservation it maps. NULL if
 * nothing. */
static const char *not_reproduced(const struct mg_case *c)
{
	if (mg_spot_is_remote(c->spot))
		return "its placement far from the other buffer (--spot)";
	if (c->interrupt)
		return "the stop after every instruction (--interrupt=step)";
	/* In threads the workers' calls are plain C calls of a memgate-style
	 * routine (standalone_threads.c). */
	if (c->threads && (mg_op_is_user(c->variant->op) || mg_variant_convention(c->variant)))
		return "the calls in several threads at once (--threads) of a user copy or a "
		       "routine called in a register convention of its own";
	/* A routine with a register convention of its own is called from
	 * inline assembly (emit_convention.c), which sets neither. */
	if (c->stack_offset && !stack_call[0])
		return "the stack pointer's alignment at entry (--stack-offset)";
	if (c->stack_offset && mg_variant_convention(c->variant))
		return "the stack pointer's alignment at entry (--stack-offset) for a routine "
		       "called in a register convention of its own";
	if (c->fpenv && mg_variant_convention(c->variant))
		return "a floating-point environment at entry other than the default (--fpenv) "
		       "for a routine called in a register convention of its own";
	/* Only SVE's is the thread's to set (set_vl). */
	if (c->vl && (!SVE_VL_SETTABLE || c->threads || c->tag || mg_variant_convention(c->variant) ||
		      mg_op_is_user(c->variant->op)))
		return "a vector length other than the start-up one (--vl) with threads or tags, "
		       "or for a user copy or a routine called in a register convention of its "
		       "own, or on an arch other than aarch64 (SVE's is the thread's to set)";
	/* The program tags them in its plain C call of a routine that
	 * returns dst (emit_tagged_call). */
	if (c->tag && (c->threads || c->stack_offset || c->fpenv || mg_op_is_user(c->variant->op) ||
		       mg_variant_convention(c->variant) || !op_texts[c->variant->op].returns_dst))
		return "tagged pointers (--tag) with threads, a stack offset or an environment at "
		       "entry, or for a user copy, a page routine or a routine called in a "
		       "register convention of its own";
	return NULL;
}

/* The failure functions memgate stubs (noreturn.h), defined as it
 * defines them, for a verdict that names one: in the program's place the
 * C library's would print and abort. */
static void emit_failure_functions(struct emit *e)
{
	fputs("/* memgate's verdict: the routine called a failure function, which never\n"
	      " * returns. The program defines them as memgate stubs them\n"
	      " * (harness/engine/noreturn.h), in place of the C library's, which would\n"
	      " * print and abort: each records its name and traps. */\n"
	      "#define FAILURE_FUNCTION(name)             \\\n"
	      "\t_Noreturn void name(void);          \\\n"
	      "\t_Noreturn void name(void)           \\\n"
	      "\t{                                   \\\n"
	      "\t\tfailure_called = #name;      \\\n"
	      "\t\t__builtin_trap();            \\\n"
	      "\t}\n",
	      e->f);
#define EMIT_FAILURE(name) fputs("FAILURE_FUNCTION(" #name ")\n", e->f);
	MG_NORETURN_FUNCTIONS(EMIT_FAILURE)
#undef EMIT_FAILURE
	fputc('\n', e->f);
}

/* The program of a case in the sandbox: standalone.c's (with
 * standalone_user.c's or standalone_threads.c's end), around the case. */
static void emit_program(struct emit *e)
{
	const struct mg_case *c = e->c;

	emit_header(e);
	fputs(standalone_includes, e->f);
	emit_case(e);
	emit_fill(e, "src", e->at.src, op_texts[c->variant->op].has_src && !c->overlap ? c->len : 0);
	emit_fill(e, "win", e->at.win, e->at.win_len);
	emit_op(e);
	if (c->threads)
		emit_threads(e);
	fputs(standalone_setup, e->f);
	fputs(standalone_signals, e->f);
	fputs(standalone_report, e->f);
	if (e->v->has & MG_HAS_CALLED)
		emit_failure_functions(e);
	fputs(standalone_compare, e->f);
	if (e->user) {
		fputs(standalone_user, e->f);
		return;
	}
	fputs(standalone_bytes, e->f);
	if (c->threads || c->tag || c->vl)
		fputs(standalone_alone, e->f);
	if (c->tag)
		emit_say_untagged(e);
	if (c->vl)
		emit_set_vl(e);
	fputs(c->threads ? standalone_threads : standalone_main, e->f);
}

/* Writes e->path with `body`; a file left half written is removed. */
static void write_program(struct emit *e, void (*body)(struct emit *))
{
	e->f = fopen(e->path, "w");
	if (!e->f)
		fail("cannot write %s: %s", e->path, strerror(errno));
	partial = e->path;
	body(e);
	if (ferror(e->f) | fclose(e->f))
		fail("cannot write %s: %s", e->path, strerror(errno));
	partial = NULL;
}

/* Whether memgate's verdict is that the routine depends on the arithmetic
 * flags at entry (check.c's entry-flags): the program then enters the call
 * with them set, as memgate's sampled call did, and shows the failure. */
static int needs_entry_flags(const struct mg_verdict *v)
{
	return v->cls == MG_ABI_VIOLATION && (v->has & MG_HAS_RULE) &&
	       strcmp(v->rule, "entry-flags") == 0;
}

void mg_emit_c(const char *path, const struct mg_case *c, const struct mg_verdict *v)
{
	const char *missing = not_reproduced(c);
	struct emit e = {.path = path, .c = c, .v = v};

	e.huge = mg_case_is_huge(c);
	if (e.huge && (!c->overlap || c->oracle))
		fail("a length over %zu without overlap (or --oracle) runs in the mapped regions "
		     "of memgate's huge-length check, which a standalone program does not "
		     "reproduce: use the replay command",
		     (size_t)MG_MAX_LEN);
	if (missing)
		fail("this case runs with %s, which a standalone program does not create: "
		     "use the replay command",
		     missing);
	/* Set in at_stack_offset, which a routine with a convention of its
	 * own (called from inline assembly) is not called through. */
	e.flags = needs_entry_flags(v);
	if (e.flags && (!*flags_set || mg_variant_convention(c->variant) || c->tag))
		fail("this finding depends on the arithmetic flags at entry, which a standalone "
		     "program sets only for a routine called in the C convention with untagged "
		     "pointers: use the replay command");
	e.user = mg_op_is_user(c->variant->op);
	if (e.user && !EXTABLE_EMULATED)
		fail("a user copy's program resumes its faults with memgate's emulation of the "
		     "kernel's exception table, which %s does not have: use the replay command",
		     c->variant->arch);
	e.sb = mg_sandbox_get();
	if (e.huge) {
		write_program(&e, emit_huge);
		return;
	}
	find_reservation(&e);
	if (e.user)
		mg_usercopy_layout(c, &e.at, &e.prot, &e.prot_len);
	else
		mg_check_layout(c, &e.at);
	write_program(&e, emit_program);
}
