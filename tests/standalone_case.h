/* A sample case for targets/standalone.c, in the form targets/emit_c.c
 * writes one: a 100-byte memcpy, each buffer flush against the guard page
 * after it, both filled from memgate's random pool (so that the pool code is
 * exercised too), and a byte-loop copy as the variant. The program built
 * from it (build/test-standalone) must print "verdict: ok" and exit 0. */

#define ARENA	     ((size_t)1048576)
#define SRC_OFF	     (PAGE + ARENA - 100)
#define DST_OFF	     (2 * PAGE + 2 * ARENA - 100)
#define WIN_OFF	     (DST_OFF - 128)
#define HAS_SRC	     1
#define SRC_SEPARATE 1
#define RETURNS_DST  1
#define RETURNS_DST_PLUS 0 /* mempcpy: len */
#define VALUE	     (0)
#define TIMEOUT_MS   1000

static const size_t len = 100;
static const size_t win_len = 228;
static const char case_text[] = "sample_memcpy (memcpy): len 100, the sample case";
static const char memgate_verdict[] = "ok";

static void fill_src(unsigned char *to)
{
	pool_fill(to, 1000u, 100, 0x55aca48f9b399280ull, "src");
}

static void fill_win(unsigned char *to)
{
	pool_fill(to, 5000u, 228, 0xae1000118c3218b5ull, "win");
}

static void *sample_memcpy(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

#define ENTRY_NAME "sample_memcpy"

static const void *entry_address(void)
{
	return (const void *)(uintptr_t)sample_memcpy;
}

static void *call_variant(unsigned char *dst, const unsigned char *src)
{
	return sample_memcpy(dst, src, len);
}

static void reference(volatile unsigned char *dst, const volatile unsigned char *src)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
}
