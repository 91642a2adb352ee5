/* The twin of bad_copy_page_stack_movaps (i386): the same movaps spill, to
 * a slot in a frame it aligns itself (a frame pointer, then esp rounded
 * down to 16), as kernel code must on its 4-byte aligned stack (must
 * pass). */
#define STACK_COPY mg_i386_copy_page_stack_aligned
#define FRAME_ENTER                                                                                \
	pushl %ebp; .cfi_adjust_cfa_offset 4; .cfi_rel_offset %ebp, 0;                            \
	movl %esp, %ebp; .cfi_def_cfa_register %ebp; andl $-16, %esp; subl $16, %esp
#define FRAME_LEAVE movl %ebp, %esp; popl %ebp; .cfi_def_cfa %esp, 4; .cfi_restore %ebp
#include "bad_copy_page_stack_movaps.S"
