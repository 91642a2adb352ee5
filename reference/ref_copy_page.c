#include "reference.h"

void ref_copy_page(void *to, const void *from)
{
	unsigned char *d = to;
	const unsigned char *s = from;

	for (size_t i = 0; i < REF_PAGE_SIZE; i++)
		d[i] = s[i];
}
