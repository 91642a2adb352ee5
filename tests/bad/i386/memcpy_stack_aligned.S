/* The twin of bad_memcpy_stack_vmovaps (i386): the same vmovaps spill, to
 * a slot in a frame it aligns itself (a frame pointer, then esp rounded
 * down to 32), so it is right at every alignment the ABI allows at entry
 * (must pass). */
#define STACK_COPY mg_i386_memcpy_stack_aligned
#define FRAME_ENTER                                                                                \
	pushl %ebp; .cfi_adjust_cfa_offset 4; .cfi_rel_offset %ebp, 0;                            \
	movl %esp, %ebp; .cfi_def_cfa_register %ebp; andl $-32, %esp; subl $32, %esp
#define FRAME_LEAVE movl %ebp, %esp; popl %ebp; .cfi_def_cfa %esp, 12; .cfi_restore %ebp
#include "bad_memcpy_stack_vmovaps.S"
