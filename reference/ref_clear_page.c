#include "reference.h"

void ref_clear_page(void *page)
{
	unsigned char *d = page;

	for (size_t i = 0; i < REF_PAGE_SIZE; i++)
		d[i] = 0;
}
