/* An off-by-one loop bound: the page's last byte is left alone. */
#include <stddef.h>

void mg_generic_bad_clear_page_short(void *page)
{
	volatile unsigned char *p = page;

	for (size_t i = 0; i < 4095; i++)
		p[i] = 0;
}
