/* The threshold bad_memcpy_nt_threshold reads, as the variant table runs
 * it: low enough to show its bug. Weak, so the definition scripts/gate
 * generates for --extern bad_nt_threshold=V takes its place in a gate's
 * build. */
__attribute__((weak)) long long bad_nt_threshold = 16;
