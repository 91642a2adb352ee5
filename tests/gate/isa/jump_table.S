/* jump_table: an x86-64 memcpy whose .text holds a table of bytes that
 * Capstone cannot decode as code (an EVEX prefix cut short). The table is
 * an object symbol of its own size: the ISA audit skips it as data.
 *
 * void *jump_table(void *d, const void *s, size_t n): rdi, rsi, rdx; rax = d.
 */
	.text
	.globl	jump_table
	.type	jump_table, @function
jump_table:
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
	.size	jump_table, .-jump_table
	.type	junk, @object
junk:
	.byte	0x62, 0xf1, 0x0f, 0x0f, 0x62
	.size	junk, .-junk
	.section .note.GNU-stack,"",@progbits
