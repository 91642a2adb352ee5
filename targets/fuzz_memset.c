/* Fuzz target for the memset family (the entry point is in fuzz_entry.c). */
const char mg_fuzz_family[] = "memset";
