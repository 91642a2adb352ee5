/* An SVE copy tuned for A64FX, whose vectors are 64 bytes (512 bits): it
 * steps 64 bytes per whole-vector load and store (ptrue), and leaves the
 * last 0-63 bytes to one predicated vector. The vector length is the
 * thread's, any the CPU supports (Linux, Documentation/arm64/sve.rst;
 * qemu's max model starts at 64): at 16 or 32 bytes each step copies a
 * part of its 64, at 128 or more the whole vectors run past the end. Its
 * twin memcpy_sve_vla includes this file and steps by the vector length
 * (cntb), with a predicated loop for the tail. */
#include "asmdefs.h"
#ifndef SVE_COPY /* the twin defines its own */
#define SVE_COPY mg_aarch64_bad_memcpy_sve_vl64
#endif
	.arch	armv8.2-a+sve
	.text
ENTRY(SVE_COPY)
#ifdef VL_AGNOSTIC
	cntb	x5			/* the vector length, in bytes */
#else
	mov	x5, #64			/* BUG: the length it was tuned for */
#endif
	mov	x3, #0
	ptrue	p1.b
	b	2f
1:	ld1b	{z0.b}, p1/z, [x1, x3]
	st1b	{z0.b}, p1, [x0, x3]
	add	x3, x3, x5
2:	sub	x4, x2, x3
	cmp	x4, x5
	b.hs	1b
	whilelo	p0.b, x3, x2		/* the tail: fewer than x5 bytes */
	b.none	4f
3:	ld1b	{z0.b}, p0/z, [x1, x3]
	st1b	{z0.b}, p0, [x0, x3]
#ifdef VL_AGNOSTIC
	incb	x3
	whilelo	p0.b, x3, x2
	b.first	3b
#endif
4:	ret
END(SVE_COPY)
