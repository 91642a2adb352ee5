/* A page clear in __clear_pages_unrolled's style, written as a kernel file
 * (gated with --kernel): the page in rdi, its length in rcx, rax zero at
 * entry and the value it stores: the convention of clear_pages()' inline
 * assembly ("+c" (len), "+D" (addr), "a" (0)),
 *	--convention 'args=rdi,rcx zero=rax'
 * Gated with the C convention it fills the page with whatever rax holds,
 * the false alarm docs/conventions.md explains. Built with -DCLOBBER_RDX it
 * counts its lines in rdx, which that convention does not let it change.
 * Written for memgate's tests. */
#include <linux/linkage.h>

#ifdef CLOBBER_RDX
#define COUNT %rdx
#else
#define COUNT %rcx
#endif

SYM_FUNC_START(clear_pages_style)
#ifdef CLOBBER_RDX
	movq	%rcx, %rdx
#endif
	shrq	$6, COUNT
.Lline:
	movq	%rax, 0(%rdi)
	movq	%rax, 8(%rdi)
	movq	%rax, 16(%rdi)
	movq	%rax, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rax, 40(%rdi)
	movq	%rax, 48(%rdi)
	movq	%rax, 56(%rdi)
	addq	$64, %rdi
	decq	COUNT
	jnz	.Lline
	RET
SYM_FUNC_END(clear_pages_style)
