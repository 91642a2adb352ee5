/* The twin of bad_memcpy_rounds_count: the same count, converted with
 * cvttsd2si, which truncates whatever MXCSR's rounding mode, so it is right
 * in every floating-point environment a caller may run with (must pass). */
#define ROUND_COPY mg_x86_64_memcpy_truncates_count
#define TO_WORDS cvttsd2si
#include "bad_memcpy_rounds_count.S"
