/* The twin of bad_copy_page_uses_sse: the same copy through xmm0-3, declared
 * to run between kernel_fpu_begin and kernel_fpu_end (must pass). */
#define SSE_PAGE_COPY mg_i386_copy_page_sse_declared
#include "bad_copy_page_uses_sse.S"
