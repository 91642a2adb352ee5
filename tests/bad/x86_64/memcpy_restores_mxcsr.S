/* The twin of bad_memcpy_resets_mxcsr: sets FTZ for its copy and restores
 * the MXCSR it found, whatever the caller's environment (must pass). */
#define MXCSR_COPY mg_x86_64_memcpy_restores_mxcsr
#define RESTORE ldmxcsr -8(%rsp)
#include "bad_memcpy_resets_mxcsr.S"
