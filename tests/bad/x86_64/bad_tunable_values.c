/* glibc's x86 tuning variables as the variant table runs
 * bad_memset_cache128 and bad_memcpy_nt16448: 0, what glibc 2.33-2.34
 * stored on a CPU without cache leaves (QEMU/TCG). Weak, and the harness's
 * own (the C library's copies are hidden in it); a gate's build renames
 * the submission's, so this is never what a gate runs with. */
__attribute__((weak)) long __x86_shared_cache_size = 0;
__attribute__((weak)) long __x86_shared_non_temporal_threshold = 0;
