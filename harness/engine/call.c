#include "call.h"
#include "reference.h"

#include <stdint.h>

/* A direct call with the variant's own register convention. */
static void *call_direct_convention(const struct mg_variant *v, const struct mg_convention *conv,
				    void *dst, const void *src, int value, size_t len)
{
	uintptr_t operands[MG_CONV_MAX_ARGS];

	mg_convention_operands(v->op, (uintptr_t)dst, mg_call_arg1(v, src, value, 1), len, operands);
#ifdef MG_ABI_GPR_NAMES
	return (void *)mg_abi_call_direct_convention((const void *)(uintptr_t)v->entry.copy, conv,
						     operands);
#else
	(void)conv; /* the parser refuses every convention here */
	return NULL;
#endif
}

void *mg_call_direct(const struct mg_variant *v, void *dst, const void *src, int value, size_t len)
{
	const struct mg_convention *conv = v->convention ? mg_variant_convention(v) : NULL;

	if (conv)
		return call_direct_convention(v, conv, dst, src, value, len);
	switch (v->op) {
	case MG_MEMCPY:
	case MG_MEMPCPY:
	case MG_MEMMOVE: return v->entry.copy(dst, src, len);
	case MG_MEMSET: return v->entry.set(dst, value, len);
	case MG_COPY_PAGE: v->entry.copy_page(dst, (void *)src); return NULL;
	case MG_CLEAR_PAGE: v->entry.clear_page(dst); return NULL;
	case MG_COPY_FROM_USER:
	case MG_COPY_TO_USER: return (void *)(uintptr_t)v->entry.ucopy(dst, src, len);
	case MG_CLEAR_USER: return (void *)(uintptr_t)v->entry.uclear(dst, len);
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
	case MG_COPY_FROM_USER: ref_copy_from_user(dst, src, len); break;
	case MG_COPY_TO_USER: ref_copy_to_user(dst, src, len); break;
	case MG_CLEAR_USER: ref_clear_user(dst, len); break;
	default: break;
	}
}
