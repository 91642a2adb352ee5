/* copy_page_nt_fenced.S without its sfence: every byte right, and its
 * non-temporal stores still weakly ordered when it returns, so a caller's
 * release store can overtake them (docs/contract.md M1). Passes at run
 * time; the gate's store-order check finds it (unfenced-nt-store). */
#define NT_PAGE_NAME bad_copy_page_nt_unfenced
#define NT_PAGE_FENCE
#include "copy_page_nt_fenced.S"
