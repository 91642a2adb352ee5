/* bad_memcpy_static_blocks's twin, with its tail length thread-local:
 * threads whose calls differ in length each keep their own, and the save
 * and restore around each call keep a call from a signal handler harmless
 * (must pass, in every situation). */
#define BLOCKS_NAME    mg_generic_memcpy_thread_blocks
#define BLOCKS_STORAGE static _Thread_local
#include "bad_memcpy_static_blocks.c"
