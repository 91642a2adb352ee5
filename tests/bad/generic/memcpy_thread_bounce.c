/* bad_memcpy_shared_bounce's twin, with its bounce buffer thread-local:
 * each thread has its own, so threads at once do not meet there, and the
 * save and restore around each call keep a call from a signal handler
 * harmless (must pass, in every situation). */
#define BOUNCE_NAME    mg_generic_memcpy_thread_bounce
#define BOUNCE_STORAGE static _Thread_local
#include "bad_memcpy_shared_bounce.c"
