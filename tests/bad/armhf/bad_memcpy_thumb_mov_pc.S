/* impls/armhf/memcpy_thumb.S's copy, returning with `mov pc, lr`: in Thumb
 * state a move to pc does not interwork (it stays in Thumb state, ARM ARM
 * A2.3.1's BranchWritePC), so an ARM caller, such as memgate's trampoline,
 * is resumed in the wrong state and runs its own instructions as Thumb
 * code. AAPCS 5.6: a routine returns with an interworking instruction
 * (bx lr, pop {..., pc}, ldr pc). Right in every byte. */
#define THUMB_COPY   mg_armhf_bad_memcpy_thumb_mov_pc
#define THUMB_RETURN mov pc, lr /* the bug: no interworking from Thumb */
#include "../../../impls/armhf/memcpy_thumb.S"
