/* impls/riscv64/memcpy_word.S (words only where dst and src share their
 * alignment) as kernel code: bad_memcpy_kernel_misaligned's twin, which
 * make verify's misaligned watch must pass. */
#define mg_riscv64_memcpy_word mg_riscv64_memcpy_kernel_word
#include "../../../impls/riscv64/memcpy_word.S"
