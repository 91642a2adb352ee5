/* An aarch64 memcpy that calls getpid with svc #0 before copying: refused at build time ("makes system calls"). */
	.text
	.globl svc_aarch64
	.type svc_aarch64, %function
svc_aarch64:
	mov x3, x0
	mov x8, #172
	svc #0
	mov x0, x3
	cbz x2, 2f
1:	ldrb w4, [x1], #1
	strb w4, [x3], #1
	subs x2, x2, #1
	b.ne 1b
2:	ret
	.size svc_aarch64, .-svc_aarch64
	.section .note.GNU-stack,"",%progbits
