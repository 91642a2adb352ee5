/* tests/gate/misaligned/words_any_alignment.S (ld/sd at any alignment,
 * correct where the CPU performs misaligned accesses, as qemu-user does) as
 * kernel code, which must make none (docs/contract.md, RK3): it passes
 * every check of the harness, and make verify's misaligned watch
 * (scripts/watch-misaligned) must see it. */
#define words_any_alignment mg_riscv64_bad_memcpy_kernel_misaligned
#include "../../gate/misaligned/words_any_alignment.S"
