/* The libFuzzer entry point every fuzz target shares: decode the input into
 * a case of the target's family, mark its coverage cell, check it, and
 * abort on a finding so the fuzzer saves the input.
 *
 * A target runs every correct variant of its family, or the one pinned with
 * --variant=NAME (libFuzzer passes flags starting with "--" on untouched) or
 * MEMGATE_VARIANT=NAME. --max-len=N or MEMGATE_MAX_LEN folds lengths below
 * N. MEMGATE_FINDINGS=DIR saves each finding there before aborting
 * (NAME.in, NAME.json, NAME.txt), and keeps the input of the call in
 * progress in DIR/inflight-PID (docs/records.md): a variant that ends the
 * process without returning leaves it behind, non-empty. An input the
 * harness could not judge leaves an error record in DIR/error-PID.json
 * before the target exits 2 (under AFL++ a child's exit says nothing). */
#include "cells.h"
#include "check.h"
#include "decode.h"
#include "finding.h"
#include "isolate.h"
#include "record.h"
#include "table.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Each target file defines its family: "memcpy", "memmove", ... */
extern const char mg_fuzz_family[];

static struct mg_target target;

/* The in-flight file: an 8-byte little-endian length, then up to
 * INFLIGHT_MAX bytes of the input being checked. Length 0: no call. */
#define INFLIGHT_MAX 4096
static volatile unsigned char *inflight;
static char inflight_path[4096];
static pid_t inflight_owner; /* the process that made it (not fork-server children) */

static void inflight_set_length(uint64_t n)
{
	for (int i = 0; i < 8; i++)
		inflight[i] = (unsigned char)(n >> (8 * i));
}

static int inflight_busy(void)
{
	for (int i = 0; i < 8; i++)
		if (inflight[i])
			return 1;
	return 0;
}

/* At exit: an exit() from inside a call is a crash the fuzzer must see; a
 * normal exit removes the file. */
static void inflight_at_exit(void)
{
	if (!inflight)
		return;
	if (inflight_busy()) {
		fprintf(stderr,
			"memgate fuzz_%s: the process exited during a call of the "
			"variant: it never returned\n",
			mg_fuzz_family);
		abort();
	}
	if (getpid() == inflight_owner)
		unlink(inflight_path);
}

static void inflight_open(const char *dir)
{
	size_t bytes = 8 + INFLIGHT_MAX;
	void *map;
	int fd;

	mkdir(dir, 0777);
	snprintf(inflight_path, sizeof inflight_path, "%s/inflight-%ld", dir, (long)getpid());
	fd = open(inflight_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
		fprintf(stderr, "memgate fuzz_%s: could not judge: cannot make %s\n",
			mg_fuzz_family, inflight_path);
		exit(2);
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "memgate fuzz_%s: could not judge: cannot map %s\n", mg_fuzz_family,
			inflight_path);
		exit(2);
	}
	inflight = map;
	inflight_owner = getpid();
	atexit(inflight_at_exit);
}

static uint64_t inflight_length(void)
{
	uint64_t n = 0;

	for (int i = 7; i >= 0; i--)
		n = n << 8 | inflight[i];
	return n < INFLIGHT_MAX ? n : INFLIGHT_MAX;
}

/* A call still in progress as a new one begins: the process that made it
 * ended inside it (an AFL++ fork-server child shares this file with the
 * next). Its input is a crash finding, saved before it is overwritten. */
static void save_lost_call(void)
{
	uint8_t data[INFLIGHT_MAX];
	size_t size = (size_t)inflight_length();
	struct mg_verdict v;
	struct mg_case c;

	memcpy(data, (const unsigned char *)inflight + 8, size);
	mg_decode(&target, data, size, &c);
	mg_verdict_never_returned(&v, -1);
	mg_finding_save(getenv("MEMGATE_FINDINGS"), &target, &c, &v, data, size);
	mg_finding_print(stderr, &target, &c, &v);
}

/* The bytes first, then the length: a non-zero length means they are all
 * there. */
static void inflight_begin(const uint8_t *data, size_t size)
{
	size_t n = size < INFLIGHT_MAX ? size : INFLIGHT_MAX;

	if (!inflight)
		return;
	if (inflight_busy())
		save_lost_call();
	memcpy((unsigned char *)inflight + 8, data, n);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	inflight_set_length(n);
}

static void inflight_end(void)
{
	if (inflight)
		inflight_set_length(0);
}

/* No call in progress, and no file left behind by its owner. */
static void inflight_close(void)
{
	if (!inflight)
		return;
	inflight_set_length(0);
	if (getpid() == inflight_owner)
		unlink(inflight_path);
}

static const char *flag_value(int argc, char **argv, const char *flag)
{
	size_t n = strlen(flag);

	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], flag, n) == 0 && argv[i][n] == '=')
			return argv[i] + n + 1;
	return NULL;
}

static const char *setting(int argc, char **argv, const char *flag, const char *env)
{
	const char *value = flag_value(argc, argv, flag);
	return value ? value : getenv(env);
}

static size_t parse_max_len(const char *text)
{
	char *end;
	unsigned long long n = strtoull(text, &end, 0);

	if (*end || n == 0 || n > MG_MAX_LEN) {
		fprintf(stderr, "memgate fuzz_%s: max-len '%s' is not a number in 1..%zu\n",
			mg_fuzz_family, text, (size_t)MG_MAX_LEN);
		exit(2);
	}
	return (size_t)n;
}

/* MEMGATE_LEN_TIME=FILE (for make bench-fuzz): the checks' wall time and
 * count per length class (mg_len_class), written to FILE at exit as lines
 * "class execs nanoseconds". Off, it costs one branch per input. */
static struct {
	FILE *out;
	unsigned long long execs[MG_LEN_CLASSES], ns[MG_LEN_CLASSES];
} len_time;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void len_time_write(void)
{
	for (unsigned i = 0; i < MG_LEN_CLASSES; i++)
		fprintf(len_time.out, "%u %llu %llu\n", i, len_time.execs[i], len_time.ns[i]);
	fclose(len_time.out);
}

static void len_time_open(const char *path)
{
	len_time.out = fopen(path, "w");
	if (!len_time.out) {
		fprintf(stderr, "memgate fuzz_%s: cannot write %s\n", mg_fuzz_family, path);
		exit(2);
	}
	atexit(len_time_write);
}

static void check_timed(const struct mg_case *c, struct mg_verdict *v)
{
	unsigned long long t0;
	unsigned k;

	if (!len_time.out) {
		mg_check(c, v);
		return;
	}
	t0 = now_ns();
	mg_check(c, v);
	k = mg_len_class(c->len);
	len_time.ns[k] += now_ns() - t0;
	len_time.execs[k]++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *pinned = setting(*argc, *argv, "--variant", "MEMGATE_VARIANT");
	const char *max_len = setting(*argc, *argv, "--max-len", "MEMGATE_MAX_LEN");
	char why[256];

	if (!mg_target_init(&target, mg_fuzz_family, pinned, why, sizeof why)) {
		fprintf(stderr, "memgate fuzz_%s: %s\n", mg_fuzz_family, why);
		exit(2);
	}
	if (max_len)
		target.max_len = parse_max_len(max_len);
	mg_program = "build/memgate";
	if (getenv("MEMGATE_FINDINGS") && *getenv("MEMGATE_FINDINGS"))
		inflight_open(getenv("MEMGATE_FINDINGS"));
	if (getenv("MEMGATE_LEN_TIME") && *getenv("MEMGATE_LEN_TIME"))
		len_time_open(getenv("MEMGATE_LEN_TIME"));
	/* Before AFL++'s fork server starts: its children inherit the sandbox
	 * instead of each building one. */
	mg_check_init();
	return 0;
}

/* AFL++'s libFuzzer driver runs this 4-byte input once in every process
 * before the real ones, to warm up. It is not a fuzz input; a pinned
 * variant that failed on it would make every run look like a crash. */
static int is_afl_warm_up(const uint8_t *data, size_t size)
{
	static int calls;

	return calls++ == 0 && size == 4 && memcmp(data, "##SI", 4) == 0;
}

/* The error record scripts/fuzz reads (docs/records.md), written to a
 * temporary name and renamed, so a reader never sees half of it. If even
 * that fails, stderr says so: the exit status 2 still stands. */
static void save_error(const char *variant, const char *reason)
{
	const char *dir = getenv("MEMGATE_FINDINGS");
	char path[4096], tmp[4200];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof path, "%s/error-%ld.json", dir, (long)getpid());
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f && mg_record_error(f, "fuzz", variant, reason) && fclose(f) == 0 &&
	    rename(tmp, path) == 0)
		return;
	fprintf(stderr, "memgate fuzz_%s: cannot write %s\n", mg_fuzz_family, path);
}

/* For the tests: MEMGATE_TEST_NOT_JUDGED=1 makes every input one the
 * harness could not judge, as a failed mapping would. */
static void test_not_judged(struct mg_verdict *v)
{
	static int on = -1;

	if (on < 0)
		on = getenv("MEMGATE_TEST_NOT_JUDGED") != NULL;
	if (on)
		mg_verdict_set(v, MG_ERROR, "MEMGATE_TEST_NOT_JUDGED is set");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mg_case c;
	struct mg_verdict v;

	if (is_afl_warm_up(data, size))
		return 0;
	mg_decode(&target, data, size, &c);
	mg_cells_mark(&target, &c);
	inflight_begin(data, size);
	check_timed(&c, &v);
	test_not_judged(&v);
	if (v.cls == MG_OK) {
		inflight_end();
		return 0;
	}
	if (v.cls == MG_ERROR) {
		/* Not the variant's fault: no finding and no input to keep, and
		 * no exit() either, which libFuzzer would report as a crash. */
		inflight_close();
		fprintf(stderr, "memgate fuzz_%s: could not judge: %s\n", mg_fuzz_family, v.detail);
		save_error(c.variant->name, v.detail);
		_exit(2);
	}
	/* Saved: the finding's own files say it, not the in-flight file. */
	if (mg_finding_save(getenv("MEMGATE_FINDINGS"), &target, &c, &v, data, size))
		inflight_close();
	mg_finding_print(stderr, &target, &c, &v);
	abort();
}
