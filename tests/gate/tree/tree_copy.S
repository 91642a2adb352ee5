/* A byte copy written as a tree's file is: its linkage macro comes from a
 * header found through -I, its name from -D COPY_NAME=..., and its return
 * value from -D RETURN_END (1: mempcpy's dst + n). Both entry points are in
 * the one file, with a local helper, as glibc's multiarch files are. */
#include <tree_linkage.h>

	.text
copy_bytes: /* local: rdi dst, rsi src, rdx n; returns the end in rdi */
	test %rdx, %rdx
	jz 2f
1:	movb (%rsi), %al
	movb %al, (%rdi)
	inc %rsi
	inc %rdi
	dec %rdx
	jnz 1b
2:	ret

ENTRY(COPY_NAME)
	mov %rdi, %rcx
	call copy_bytes
#if RETURN_END
	mov %rdi, %rax
#else
	mov %rcx, %rax
#endif
	ret
END(COPY_NAME)
