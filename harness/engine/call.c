#include "call.h"
#include "reference.h"

void *mg_call_direct(const struct mg_variant *v, void *dst, const void *src, int value, size_t len)
{
	switch (v->op) {
	case MG_MEMCPY:
	case MG_MEMPCPY:
	case MG_MEMMOVE: return v->entry.copy(dst, src, len);
	case MG_MEMSET: return v->entry.set(dst, value, len);
	case MG_COPY_PAGE: v->entry.copy_page(dst, (void *)src); return NULL;
	case MG_CLEAR_PAGE: v->entry.clear_page(dst); return NULL;
	default: return NULL;
	}
}

void mg_call_reference(enum mg_op op, void *dst, const void *src, int value, size_t len)
{
	switch (op) {
	case MG_MEMCPY: ref_memcpy(dst, src, len); break;
	case MG_MEMPCPY: ref_mempcpy(dst, src, len); break;
	case MG_MEMMOVE: ref_memmove(dst, src, len); break;
	case MG_MEMSET: ref_memset(dst, value, len); break;
	case MG_COPY_PAGE: ref_copy_page(dst, src); break;
	case MG_CLEAR_PAGE: ref_clear_page(dst); break;
	default: break;
	}
}
