/* below_sp_frame: the twin of below_sp: the same scratch slot, in a frame
 * it allocates (sub sp first), so that it lies above sp. Accepted. */
#define COPY  below_sp_frame
#define FRAME 1
#include "below_sp.S"
