/* A kernel copy_page that moves 16 bytes at a time through xmm0-xmm3
 * without kernel_fpu_begin: correct bytes, but in the kernel it would
 * overwrite the vector registers of whatever task it interrupted (i386
 * kernel code is built with -msoft-float and may use the FPU only between
 * kernel_fpu_begin and kernel_fpu_end). The kernel contract's no-FPU rule
 * must name it. Its twin copy_page_sse_declared includes this file and is
 * declared to run between them (--requires fpu): it must pass.
 *
 * void mg_i386_bad_copy_page_uses_sse(void *to, void *from) */
#include "asmdefs.h"
#ifndef SSE_PAGE_COPY /* the twin defines its own */
#define SSE_PAGE_COPY mg_i386_bad_copy_page_uses_sse
#endif
	.text
ENTRY(SSE_PAGE_COPY)
	movl	4(%esp), %edx		/* to */
	movl	8(%esp), %eax		/* from */
	movl	$4096, %ecx
1:	movups	0(%eax), %xmm0
	movups	16(%eax), %xmm1
	movups	32(%eax), %xmm2
	movups	48(%eax), %xmm3
	movups	%xmm0, 0(%edx)
	movups	%xmm1, 16(%edx)
	movups	%xmm2, 32(%edx)
	movups	%xmm3, 48(%edx)
	addl	$64, %eax
	addl	$64, %edx
	subl	$64, %ecx
	jnz	1b
	ret
END(SSE_PAGE_COPY)
