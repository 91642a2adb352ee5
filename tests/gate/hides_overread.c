/* Over-reads src by one byte and hides the fault with its own SIGSEGV handler: refused at build time (calls signal, sigsetjmp). */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

void *hides_overread(void *d, const void *s, size_t n);

static sigjmp_buf hides_overread_escape;

static void hides_overread_handler(int sig)
{
	(void)sig;
	siglongjmp(hides_overread_escape, 1);
}

void *hides_overread(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	const volatile unsigned char *from = s;
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	signal(SIGSEGV, hides_overread_handler);
	if (sigsetjmp(hides_overread_escape, 1) == 0)
		(void)from[n];
	return d;
}
