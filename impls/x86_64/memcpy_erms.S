/* memcpy_erms: VARIANTS.md #15 (2009 fast-string memcpy thread): a single
 * `rep movsb`. It is correct on every x86-64 CPU; it is fast only with ERMS
 * (enhanced rep movsb/stosb), hence the feature declared in the table.
 *
 * void *mg_x86_64_memcpy_erms(void *d, const void *s, size_t n)
 *	rdi = d, rsi = s, rdx = n; returns d in rax.
 *
 * DF = 0 on entry (ABI), so the copy runs upwards; rcx = 0 touches nothing.
 */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_memcpy_erms)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
END(mg_x86_64_memcpy_erms)
