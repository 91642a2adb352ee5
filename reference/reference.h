/* The oracles: plain byte loops, one per operation. They are built with
 * -fno-builtin -fno-tree-loop-distribute-patterns so the compiler cannot turn
 * them back into the library calls they are here to check (tests/reference.sh
 * inspects the objects). */
#ifndef MG_REFERENCE_H
#define MG_REFERENCE_H

#include <stddef.h>

void *ref_memcpy(void *dst, const void *src, size_t n);
/* Copies like ref_memcpy and returns dst + n. */
void *ref_mempcpy(void *dst, const void *src, size_t n);
void *ref_memmove(void *dst, const void *src, size_t n);
void *ref_memset(void *dst, int c, size_t n);
void ref_copy_page(void *to, const void *from);
void ref_clear_page(void *page);
/* The kernel's user copies on memory that cannot fault: all n bytes, 0 left. */
unsigned long ref_copy_from_user(void *to, const void *from, unsigned long n);
unsigned long ref_copy_to_user(void *to, const void *from, unsigned long n);
unsigned long ref_clear_user(void *to, unsigned long n);

#define REF_PAGE_SIZE 4096u

#endif
