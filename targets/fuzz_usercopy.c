/* Fuzz target for the user copies, copy_from_user, copy_to_user and
 * clear_user, with the user buffer faulting (the entry point is in
 * fuzz_entry.c; docs/usercopy.md). */
const char mg_fuzz_family[] = "usercopy";
