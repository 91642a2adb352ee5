/* memset_nt_fenced.S without its sfence: every byte right, and its
 * non-temporal stores still weakly ordered when it returns (docs/
 * contract.md M1). Passes at run time; the gate's store-order check finds
 * it (unfenced-nt-store). */
#define NT_MEMSET_NAME bad_memset_nt_unfenced
#define NT_MEMSET_FENCE
#include "memset_nt_fenced.S"
