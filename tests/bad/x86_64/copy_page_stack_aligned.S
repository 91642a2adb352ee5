/* The twin of bad_copy_page_stack_movaps: the same movaps spill, to a slot
 * in a frame it aligns itself (a frame pointer, then rsp rounded down to
 * 16), as kernel code must on its 8-byte aligned stack (must pass). */
#define STACK_COPY mg_x86_64_copy_page_stack_aligned
#define FRAME_ENTER                                                                                \
	pushq %rbp; .cfi_adjust_cfa_offset 8; .cfi_rel_offset %rbp, 0;                            \
	movq %rsp, %rbp; .cfi_def_cfa_register %rbp; andq $-16, %rsp; subq $16, %rsp
#define FRAME_LEAVE movq %rbp, %rsp; popq %rbp; .cfi_def_cfa %rsp, 8; .cfi_restore %rbp
#include "bad_copy_page_stack_movaps.S"
