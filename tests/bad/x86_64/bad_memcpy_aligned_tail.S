/* A fast path with a forgotten tail, reached only by a conjunction: both
 * pointers 32 bytes into a 64-byte line and 2048 < n < 4096. It copies whole 64-byte
 * blocks and drops the last n mod 64 bytes; every other case takes
 * `rep movsb` and is right. The fuzz benchmark uses it to show what the
 * coverage cells are worth: each condition alone is common, together they
 * are about one random input in 60,000, and nothing in the assembly tells a
 * fuzzer it is getting closer. */
#include "asmdefs.h"
	.text
ENTRY(mg_x86_64_bad_memcpy_aligned_tail)
	movq	%rdi, %rax
	movq	%rdi, %r8
	andl	$63, %r8d
	cmpl	$32, %r8d
	jne	.Lstring
	movq	%rsi, %r8
	andl	$63, %r8d
	cmpl	$32, %r8d
	jne	.Lstring
	cmpq	$2048, %rdx
	jbe	.Lstring
	cmpq	$4096, %rdx
	jae	.Lstring
	movq	%rdx, %rcx
	andq	$-64, %rcx		/* BUG: n mod 64 bytes are never copied */
	rep movsb
	ret
.Lstring:
	movq	%rdx, %rcx
	rep movsb
	ret
END(mg_x86_64_bad_memcpy_aligned_tail)
