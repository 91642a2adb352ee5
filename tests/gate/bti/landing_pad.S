/* landing_pad: the twin of no_landing_pad: the same copy, marked BTI, its
 * entry starting with bti c (hint 34). Accepted. */
#define COPY landing_pad
#define PAD  hint 34
#include "no_landing_pad.S"
