/* The part of the standalone program that `scripts/repro --emit-c` (here
 * `memgate run --emit-c`) writes for a memmove of 2 GiB and more within
 * one buffer: memgate's huge-length check, "one buffer"
 * (harness/engine/huge.c). It takes the place of targets/standalone.c's
 * setup, compare, bytes and main sections (its includes, pool, signals and
 * report sections stay); targets/emit_c.c writes the case before it:
 * REGION_SIZE, MEMGATE_REGION, LOWER_OFF, SPAN, SRC_OFF, DST_OFF, SEED,
 * POOL_SIZE, len and call_variant. scripts/c-sections cuts the sections
 * below into build/gen/standalone_huge_text.h; tests/run.d/repro.sh builds
 * and runs the programs written with them.
 *
//@ huge_notes
 * How it runs, as memgate's huge-length check runs it: one region holds
 * the move's whole span, a 16 MiB memfd mapped over and over (so the move
 * needs 16 MiB of memory, not 2 GiB), between PROT_NONE guard pages, asked
 * for at the address memgate's had (a bug of signed addresses needs the
 * same side of 0x80000000). Real pages hold 64 KiB windows around the
 * points where a count error shows: both ends of the span, 2 GiB into it,
 * its quarters, and 0x80000000 if the region crosses it, filled with
 * memgate's pool bytes. A dst byte in a window is checked when its source
 * byte lies in the same window (a correct memmove reads each source byte
 * before it overwrites it; the aliased memfd's bytes are unknown). The
 * routine is called once, directly; a timer stands in for memgate's
 * watchdog. The verdict takes the first of: a fault, a changed byte
 * outside dst in a window, a wrong byte in dst, a wrong return value.
 *
 * Not checked: the trampoline's ABI checks (reproduce those with memgate,
 * the replay command above).
 */
//@ huge_setup
#include <unistd.h>

#define CHUNK  ((size_t)16 << 20)
#define GUARD  ((size_t)PAGE)
#define WINDOW ((size_t)64 << 10)

struct window {
	size_t lo, hi; /* region offsets */
};

static unsigned char *lo, *hi; /* the region with its guard pages */
static unsigned char *region, *src, *dst;
static struct window windows[8];
static size_t window_count;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Byte k of memgate's pool (standalone_pool's generator). */
static unsigned char pool_byte(uint64_t k)
{
	return (unsigned char)(pool_word(k / 8) >> (8 * (k % 8)));
}

/* What a window byte at region offset x starts with, as memgate fills it. */
static unsigned char poison_at(size_t x)
{
	return pool_byte((x + SEED) % POOL_SIZE);
}

/* The region: reserved at memgate's address if it is free, the memfd
 * mapped over it CHUNK by CHUNK. */
static void map_region(void)
{
	size_t all = REGION_SIZE + 2 * GUARD;
	int fd = memfd_create("memgate-huge-one", 0);

	lo = mmap((void *)(MEMGATE_REGION - GUARD), all, PROT_NONE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (lo == MAP_FAILED)
		die("mmap (a region of 2 GiB and more)");
	if ((uintptr_t)lo != MEMGATE_REGION - GUARD)
		printf("note:    the region is at %p, not at memgate's %p: a bug that depends on\n"
		       "         the addresses may not show\n",
		       (void *)(lo + GUARD), (void *)MEMGATE_REGION);
	hi = lo + all;
	region = lo + GUARD;
	if (fd < 0 || ftruncate(fd, (off_t)CHUNK))
		die("memfd_create");
	for (size_t at = 0; at < REGION_SIZE; at += CHUNK)
		if (mmap(region + at, REGION_SIZE - at < CHUNK ? REGION_SIZE - at : CHUNK,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
			die("mmap (the memfd)");
}

/* Adds [from, to), page-rounded, merged with a window it touches. */
static void add_window(size_t from, size_t to)
{
	from &= ~(GUARD - 1);
	to = (to + GUARD - 1) & ~(GUARD - 1);
	if (to > REGION_SIZE)
		to = REGION_SIZE;
	for (size_t i = 0; i < window_count; i++)
		if (from <= windows[i].hi && to >= windows[i].lo) {
			windows[i].lo = from < windows[i].lo ? from : windows[i].lo;
			windows[i].hi = to > windows[i].hi ? to : windows[i].hi;
			return;
		}
	windows[window_count++] = (struct window){from, to};
}

static void add_window_at(size_t at)
{
	add_window(at > WINDOW / 2 ? at - WINDOW / 2 : 0, at + WINDOW / 2);
}

/* Real pages around the span's ends, 2 GiB into it, its quarters and
 * 0x80000000, filled with their pool bytes. */
static void map_windows(void)
{
	const size_t points[] = {0, (size_t)1 << 31, SPAN / 4, SPAN / 2, SPAN / 4 * 3, SPAN};
	uintptr_t at_2gib = (uintptr_t)0x80000000u - (uintptr_t)region;

	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
		add_window_at(LOWER_OFF + (points[i] < SPAN ? points[i] : SPAN));
	if ((uintptr_t)region < 0x80000000u && at_2gib < REGION_SIZE)
		add_window_at(at_2gib);
	for (size_t i = 0; i < window_count; i++) {
		struct window *w = &windows[i];

		if (mmap(region + w->lo, w->hi - w->lo, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			die("mmap (a window)");
		for (size_t x = w->lo; x < w->hi; x++)
			region[x] = poison_at(x);
	}
}

//@ huge
/* What region byte x of window w should hold after the move, or -1 when
 * its source byte is outside the window. */
static int expected_at(const struct window *w, size_t x)
{
	size_t i = x - DST_OFF, from = SRC_OFF + i;

	if (x < DST_OFF || i >= len)
		return poison_at(x);
	return from >= w->lo && from < w->hi ? poison_at(from) : -1;
}

/* The first changed byte outside dst (`outside`), or wrong byte in it. */
static int check_windows(int outside)
{
	char at[160], detail[320];

	for (size_t k = 0; k < window_count; k++)
		for (size_t x = windows[k].lo; x < windows[k].hi; x++) {
			int want = expected_at(&windows[k], x);
			int in_dst = x >= DST_OFF && x - DST_OFF < len;

			if (in_dst == outside || want < 0 || region[x] == want)
				continue;
			if (outside) {
				where(at, sizeof at, "dst", dst, region + x);
				snprintf(detail, sizeof detail, "%s: changed 0x%02x -> 0x%02x", at,
					 want, region[x]);
				return verdict("out-of-bounds-write", detail);
			}
			snprintf(detail, sizeof detail,
				 "dst[%zu] (0x%zx) got 0x%02x want 0x%02x; the copy did not reach "
				 "this far, or not right, for a length of %zu",
				 x - DST_OFF, x - DST_OFF, region[x], want, len);
			return verdict("wrong-result", detail);
		}
	return 0;
}

int main(void)
{
	void *returned;
	char detail[128];

	printf("case:    %s\nmemgate: %s\n", case_text, memgate_verdict);
	map_region();
	src = region + SRC_OFF;
	dst = region + DST_OFF;
	map_windows();
	fflush(stdout);
	catch_signals(on_signal);
	if (sigsetjmp(escape, 1)) {
		after_call();
		exit(report_fault());
	}
	set_timer(TIMEOUT_MS);
	returned = call_variant(dst, src);
	after_call();
	if (check_windows(1) || check_windows(0))
		exit(1);
	if (returned != dst) {
		snprintf(detail, sizeof detail, "returned dst%+td, want dst+0",
			 (unsigned char *)returned - dst);
		exit(verdict("wrong-return", detail));
	}
	printf("verdict: ok\n");
	exit(0);
}
