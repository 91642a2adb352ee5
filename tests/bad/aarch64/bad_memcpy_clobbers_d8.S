/* Copies through b8 without saving d8: a load into b8 writes the whole of
 * v8 (the byte, zeros above it), so the low 64 bits the caller keeps there
 * are gone. */
#include "asmdefs.h"
	.text
ENTRY(mg_aarch64_bad_memcpy_clobbers_d8)
	mov	x3, #0
1:	cmp	x3, x2
	b.eq	2f
	ldr	b8, [x1, x3]
	str	b8, [x0, x3]
	add	x3, x3, #1
	b	1b
2:	ret
END(mg_aarch64_bad_memcpy_clobbers_d8)
