/* Fuzz target for the page family (the entry point is in fuzz_entry.c). */
const char mg_fuzz_family[] = "page";
