/* The twin of bad_memcpy_ldrd_unaligned: the same 8-byte blocks, moved
 * with two ldr and two str, which ARMv7 performs at any address (SCTLR.A
 * is clear under Linux; ARM ARM A3.2.1). Must pass. */
#define BLOCK_COPY mg_armhf_memcpy_ldr_unaligned
#define WORD_LOADS
#include "bad_memcpy_ldrd_unaligned.S"
