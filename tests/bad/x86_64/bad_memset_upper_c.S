/* Replicates c into a word by multiplying the whole 64-bit register, so the
 * upper half of rsi, which the ABI leaves undefined for an int, leaks into
 * the fill bytes. Correct when the caller happens to zero-extend. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memset_upper_c)
	movq	%rdi, %r8
	movabsq	$0x0101010101010101, %rax
	movzbq	%sil, %rcx
	shrq	$32, %rsi		/* BUG: folds the undefined upper half in */
	orq	%rsi, %rcx
	imulq	%rcx, %rax
	movq	%rdx, %rcx
	shrq	$3, %rcx
	rep stosq
	movq	%rdx, %rcx
	andq	$7, %rcx
	rep stosb
	movq	%r8, %rax
	ret
END(mg_x86_64_bad_memset_upper_c)
