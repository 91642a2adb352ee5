/* A sample case for targets/standalone_user.c, in the form targets/emit_c.c
 * writes one: a 17-byte copy_from_user whose user source faults from byte 8
 * (byte 8 starts a PROT_NONE page), the kernel destination inside its
 * arena, and as the variant a C routine that copies the 8 bytes it can and
 * returns the 9 it cannot. The program built from it
 * (build/test-standalone-user) must print "verdict: ok" and exit 0. A
 * fault resumed through the exception table takes an assembly routine:
 * tests/run.d/repro.sh builds and runs the programs --emit-c writes for
 * them. */

#define ARENA	      ((size_t)1048576)
#define SRC_OFF	      (3 * PAGE - 8)
#define DST_OFF	      (2 * PAGE + ARENA + 1000)
#define WIN_OFF	      (DST_OFF - 128)
#define HAS_SRC	      1
#define SRC_SEPARATE  1
#define TIMEOUT_MS    1000
#define USER_IS_SRC   1
#define IS_CLEAR_USER 0
#define FAULT_AT      (8)
#define PROT_LEN      ((size_t)PAGE)

static const size_t len = 17;
static const size_t win_len = 273;
static const char case_text[] = "sample_copy_from_user (copy_from_user): len 17, the user "
				"source faults from byte 8, the sample case";
static const char memgate_verdict[] = "ok";

static void fill_src(unsigned char *to)
{
	for (size_t i = 0; i < len; i++)
		to[i] = (unsigned char)(0xa0 + i);
}

static void fill_win(unsigned char *to)
{
	for (size_t i = 0; i < win_len; i++)
		to[i] = (unsigned char)(i * 7);
}

static unsigned long sample_copy_from_user(void *to, const void *from, unsigned long n)
{
	volatile unsigned char *d = to;
	const volatile unsigned char *s = from;
	unsigned long i;

	for (i = 0; i < n && i < (unsigned long)FAULT_AT; i++)
		d[i] = s[i];
	return n - i;
}

#define ENTRY_NAME "sample_copy_from_user"

static const void *entry_address(void)
{
	return (const void *)(uintptr_t)sample_copy_from_user;
}

static unsigned long call_variant(unsigned char *dst, const unsigned char *src)
{
	return sample_copy_from_user(dst, src, len);
}

static void reference(volatile unsigned char *dst, const volatile unsigned char *src)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
}
