/* Fuzz target for the memcpy family, memcpy and mempcpy variants (the entry
 * point is in fuzz_entry.c). */
const char mg_fuzz_family[] = "memcpy";
