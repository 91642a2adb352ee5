/* The outcome of one case: exactly one class, plus a one-line diagnosis. */
#ifndef MG_VERDICT_H
#define MG_VERDICT_H

#include <stddef.h>

enum mg_class {
	MG_OK,
	MG_WRONG_RESULT,
	MG_OOB_READ,
	MG_OOB_WRITE,
	MG_SRC_MODIFIED,
	MG_WRONG_RETURN,
	MG_CRASH,
	MG_TIMEOUT,
	MG_ABI_VIOLATION,
	/* An over-read that stays in a naturally aligned block holding a buffer
	 * byte (it cannot fault on an MMU), judged a failure: on aarch64 when it
	 * crosses a 16-byte MTE granule, or under --overread=strict. Otherwise
	 * it is the warning MG_WARN_ALIGNED_OVERREAD. */
	MG_ALIGNED_OVERREAD,
	/* The user copies' fault contract (docs/usercopy.md): a fault on the
	 * user buffer at an instruction the exception table does not list (the
	 * kernel would oops); a fault on the kernel buffer, which never faults;
	 * a returned count outside [0, n], not 0 without a fault, or claiming
	 * bytes past the fault copied; a byte written past the ones the count
	 * says were copied; n returned though the first byte could be copied. */
	MG_UNHANDLED_FAULT,
	MG_KERNEL_FAULT,
	MG_WRONG_COUNT,
	MG_WRITE_PAST_COUNT,
	MG_NOTHING_COPIED,
	/* Not a finding: the harness could not judge the case (it could not map
	 * its memory, fork, ...); the detail says why. */
	MG_ERROR,
	MG_CLASS_COUNT
};

/* A set of classes, for the table's expectations. */
#define MG_CLASS_BIT(c)			      (1u << (c))
#define MG_EXPECT_1(a)			      MG_CLASS_BIT(a)
#define MG_EXPECT_2(a, b)		      (MG_CLASS_BIT(a) | MG_CLASS_BIT(b))
#define MG_EXPECT_3(a, b, c)		      (MG_CLASS_BIT(a) | MG_CLASS_BIT(b) | MG_CLASS_BIT(c))
#define MG_EXPECT_PICK(_1, _2, _3, name, ...) name
/* The expected failure shows only at lengths of 2 GiB and more: the sweep
 * must pass, and the huge-length check must fail with these classes. */
#define MG_EXPECT_ONLY_HUGE (1u << 31)
#define MG_EXPECT_HUGE(...) (MG_EXPECT_ONLY_HUGE | MG_EXPECT(__VA_ARGS__))
/* The quick sweep misses the failure (it needs a combination the quick
 * profile does not try): the quick sweep must pass, and the full sweep, like
 * the fuzzer, must find it with these classes. */
#define MG_EXPECT_ONLY_FULL (1u << 30)
#define MG_EXPECT_FULL(...) (MG_EXPECT_ONLY_FULL | MG_EXPECT(__VA_ARGS__))
/* Right in every check of the harness, wrong in what only riscv64's
 * misaligned watch sees (qemu's plugin, outside the harness: docs/arches.md,
 * "Misaligned accesses"): the sweep must pass, and scripts/watch-misaligned,
 * around make verify, must see the routine load or store misaligned. */
#define MG_EXPECT_MISALIGNED (1u << 29)
#define MG_EXPECT(...)                                                                             \
	MG_EXPECT_PICK(__VA_ARGS__, MG_EXPECT_3, MG_EXPECT_2, MG_EXPECT_1)(__VA_ARGS__)

#define MG_DETAIL_MAX 384
#define MG_RULE_MAX   32
#define MG_PC_MAX     96
#define MG_CALLED_MAX 32

/* Not failures: correct code that costs its caller. */
enum mg_warning {
	MG_WARN_DIRTY_UPPER = 1u << 0,	    /* AVX upper state left dirty: no vzeroupper */
	MG_WARN_ALIGNED_OVERREAD = 1u << 1, /* an over-read inside an aligned block (struct
					     * mg_overread says where) */
};

/* Parts of a case that this machine could not judge: a limit of the
 * emulator or the kernel, never the routine's. The rest of the case is
 * judged as ever; the records count the cases each part was left out of,
 * and say why (docs/records.md, "not_judged"). */
enum mg_unjudged {
	/* The x87 part of the kernel contract's fpu-state rule, on a call a
	 * signal returned into (qemu-i386 7.2's sigreturn drops the x87 state) */
	MG_UNJUDGED_X87_RESUMED = 1u << 0,
	/* A step in a non-default x87 environment: the case ran in the default
	 * one (the same sigreturn), its interrupts judged there */
	MG_UNJUDGED_X87_STEPPED = 1u << 1,
};
#define MG_UNJUDGED_KINDS 2

/* An aligned over-read: the buffer and side, how far it reads, and the
 * smallest naturally aligned block holding it and a byte of the buffer (the
 * width of an aligned load that makes it). */
struct mg_overread {
	int buffer; /* enum mg_buffer */
	int side;   /* enum mg_side */
	long long distance;
	unsigned width;
};

enum mg_access { MG_ACCESS_UNKNOWN, MG_ACCESS_READ, MG_ACCESS_WRITE };
enum mg_buffer { MG_BUFFER_SRC, MG_BUFFER_DST };
enum mg_side { MG_SIDE_BEFORE, MG_SIDE_PAST_END, MG_SIDE_INSIDE };

/* Which of the optional fields of a verdict hold something. Only `has` is
 * cleared per case: a field is read only when its bit is set. */
enum mg_has {
	MG_HAS_WHERE = 1u << 0,	  /* buffer, side, distance, offset */
	MG_HAS_ACCESS = 1u << 1,  /* access */
	MG_HAS_RULE = 1u << 2,	  /* rule (and rule_is_register) */
	MG_HAS_VALUES = 1u << 3,  /* old_value, new_value */
	MG_HAS_SIGNAL = 1u << 4,  /* signo, died */
	MG_HAS_PC = 1u << 5,	  /* pc */
	MG_HAS_ADDRESS = 1u << 6, /* address */
	MG_HAS_BYTE = 1u << 7,	  /* index, got, want */
	MG_HAS_EXIT = 1u << 8,	  /* exit_status: the process exited during a call */
	MG_HAS_CALLED = 1u << 9,  /* called: a failure function was reached (noreturn.h) */
};

/* One case's verdict as data; `detail` is the same said for people, rendered
 * from these fields by whoever set them. */
struct mg_verdict {
	enum mg_class cls;
	unsigned warnings; /* enum mg_warning bits, whatever the class */
	unsigned unjudged; /* enum mg_unjudged bits, whatever the class */
	unsigned has;	   /* enum mg_has bits */
	enum mg_buffer buffer;
	enum mg_side side;
	long long distance; /* bytes from the buffer: 1 is the first byte outside */
	long long offset;   /* from the buffer's start, negative before it */
	enum mg_access access;
	char rule[MG_RULE_MAX]; /* the ABI rule: "rbx", "direction-flag", ... */
	int rule_is_register;	/* a callee-saved register, clobbered */
	unsigned long long old_value, new_value;
	int signo;
	int died;	    /* the whole process died of signo */
	char pc[MG_PC_MAX]; /* "symbol+0x1c" or a raw address */
	unsigned long long address;
	long long index; /* the first wrong byte, as an offset from dst */
	unsigned got, want;
	unsigned char got_run[8]; /* wrong-result: what dst holds from index on, */
	unsigned got_run_len;	  /* up to 8 bytes (0: not known) */
	int exit_status;
	char called[MG_CALLED_MAX]; /* the failure function reached: "__chk_fail" */
	int memcheck;		    /* only valgrind's memcheck saw it: replays only under it */
	struct mg_overread overread; /* MG_WARN_ALIGNED_OVERREAD, or class MG_ALIGNED_OVERREAD */
	char detail[MG_DETAIL_MAX]; /* empty for MG_OK */
};

/* Makes `out` a verdict of class `cls` with no fields and no detail yet;
 * keeps its warnings and its parts not judged. */
static inline void mg_verdict_start(struct mg_verdict *out, enum mg_class cls)
{
	out->cls = cls;
	out->has = 0;
	out->memcheck = 0;
	out->detail[0] = '\0';
}
/* Appends printf-formatted text to the detail. */
__attribute__((format(printf, 2, 3))) void mg_verdict_say(struct mg_verdict *out,
							  const char *format, ...);
/* Sets where an access fell relative to a buffer [base, base + len) and
 * appends it in words: "src, 1 byte past the end (at src+17, len 17)". */
void mg_verdict_locate(struct mg_verdict *out, enum mg_buffer buffer, const unsigned char *base,
		       size_t len, const unsigned char *addr);
/* Sets the first wrong byte (index from dst, what it holds, what it should). */
void mg_verdict_byte(struct mg_verdict *out, long long index, unsigned got, unsigned want);
/* An ABI violation: the rule, the values before and after when there are
 * (has_values), and the detail, printf-formatted by the caller from them. */
__attribute__((format(printf, 7, 8))) void
mg_verdict_abi(struct mg_verdict *out, const char *rule, int is_register, int has_values,
	       unsigned long long old_value, unsigned long long new_value, const char *format, ...);

const char *mg_buffer_name(enum mg_buffer buffer);
/* "before", "past-end", "inside" */
const char *mg_side_name(enum mg_side side);
/* "read", "write", or NULL when unknown */
const char *mg_access_name(enum mg_access access);

/* Starts a verdict of class `cls` (mg_verdict_start) with a printf-formatted
 * detail: for the classes whose words need no fields. */
__attribute__((format(printf, 3, 4))) void mg_verdict_set(struct mg_verdict *out, enum mg_class cls,
							  const char *format, ...);

const char *mg_class_name(enum mg_class cls);
/* Parses a class name ("wrong-result"); returns MG_CLASS_COUNT if unknown. */
enum mg_class mg_class_parse(const char *name);
/* Where a failure happened, without the distances, for telling findings
 * apart: "dst past the end", "SIGILL at sym+0x4", "rbx clobbered",
 * "direction-flag"; "-" for classes without a site. From the fields only. */
void mg_verdict_site(const struct mg_verdict *v, char *out, size_t size);
/* One line on a warning bit, and its name ("dirty-upper"). */
const char *mg_warning_text(unsigned warning);
const char *mg_warning_name(unsigned warning);
/* A part not judged (one enum mg_unjudged bit): its name
 * ("x87-after-signal"), the check it is part of ("abi", "interrupts":
 * memgate verify's stages, the gate's checks) and what was left out and
 * why, for people. */
const char *mg_unjudged_name(unsigned part);
const char *mg_unjudged_check(unsigned part);
const char *mg_unjudged_text(unsigned part);
/* "src, 3 bytes past the end, within an aligned 16-byte block" */
void mg_overread_describe(const struct mg_overread *r, char *out, size_t size);
/* Writes the names of the classes in `mask`, comma-separated. */
void mg_class_mask_format(unsigned mask, char *out, unsigned size);

/* "SIGSEGV", ..., "the watchdog's signal" (engine/fault.h). */
const char *mg_signal_name(int signo);

#endif
