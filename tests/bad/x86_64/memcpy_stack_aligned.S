/* The twin of bad_memcpy_stack_vmovaps: the same vmovaps spill, to a slot
 * in a frame it aligns itself (a frame pointer, then rsp rounded down to
 * 32), so it is right at every alignment the ABI allows at entry (must
 * pass). */
#define STACK_COPY mg_x86_64_memcpy_stack_aligned
#define FRAME_ENTER                                                                                \
	pushq %rbp; .cfi_adjust_cfa_offset 8; .cfi_rel_offset %rbp, 0;                            \
	movq %rsp, %rbp; .cfi_def_cfa_register %rbp; andq $-32, %rsp; subq $32, %rsp
#define FRAME_LEAVE movq %rbp, %rsp; popq %rbp; .cfi_def_cfa %rsp, 8; .cfi_restore %rbp
#include "bad_memcpy_stack_vmovaps.S"
