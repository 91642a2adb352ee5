/* The twin of bad_memcpy_resets_mxcsr: sets FTZ for its copy and restores
 * the MXCSR it found, whatever the caller's environment (must pass). */
#define MXCSR_COPY mg_i386_memcpy_restores_mxcsr
#define RESTORE ldmxcsr 4(%esp)
#include "bad_memcpy_resets_mxcsr.S"
