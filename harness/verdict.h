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
#define MG_EXPECT(...)                                                                             \
	MG_EXPECT_PICK(__VA_ARGS__, MG_EXPECT_3, MG_EXPECT_2, MG_EXPECT_1)(__VA_ARGS__)

#define MG_DETAIL_MAX 384

/* Not failures: correct code that costs its caller. */
enum mg_warning {
	MG_WARN_DIRTY_UPPER = 1u << 0, /* AVX upper state left dirty: no vzeroupper */
};

struct mg_verdict {
	enum mg_class cls;
	unsigned warnings;	    /* enum mg_warning bits, whatever the class */
	char detail[MG_DETAIL_MAX]; /* empty for MG_OK */
};

/* Sets the class and a printf-formatted detail. */
__attribute__((format(printf, 3, 4))) void mg_verdict_set(struct mg_verdict *out, enum mg_class cls,
							  const char *format, ...);

const char *mg_class_name(enum mg_class cls);
/* Parses a class name ("wrong-result"); returns MG_CLASS_COUNT if unknown. */
enum mg_class mg_class_parse(const char *name);
/* Where a failure happened, without the distances, for telling findings
 * apart: "dst past the end", "SIGILL at sym+0x4"; "-" for classes without
 * a site. */
void mg_verdict_site(const struct mg_verdict *v, char *out, size_t size);
/* One line on a warning bit. */
const char *mg_warning_text(unsigned warning);
/* Writes the names of the classes in `mask`, comma-separated. */
void mg_class_mask_format(unsigned mask, char *out, unsigned size);

#endif
