/* The twin of bad_memcpy_stack_align16: the same copy through a 16-byte
 * aligned stack slot, with sp aligned down to 16 first (a routine may
 * align its own frame; it is promised 8). Must pass at every stack
 * offset. */
#define STACK_COPY mg_armhf_memcpy_stack_align16
#define ALIGN_OWN
#include "bad_memcpy_stack_align16.S"
