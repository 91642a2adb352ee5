/* bad_memcpy_tls_bounce's twin: its long path stages through a buffer on
 * its own stack, so a signal handler's call stages in a frame of its own
 * (must pass, in every situation). */
#define BOUNCE_NAME    mg_generic_memcpy_stack_bounce
#define BOUNCE_STORAGE
#include "bad_memcpy_tls_bounce.c"
