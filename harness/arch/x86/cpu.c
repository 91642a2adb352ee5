/* CPUID-based detection for x86-64 and i386. A vector feature counts only
 * when the OS also saves its register state (XCR0), or its instructions
 * would fault. */
#include "abi.h"
#include "cpu.h"
#include "variant.h"

#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* CPUID leaf 1's ECX: the SSE generations after SSE2, and MOVBE. */
static unsigned ecx1_features(unsigned c)
{
	unsigned features = 0;

	if (c & bit_SSE3)
		features |= MG_FEAT_SSE3;
	if (c & bit_SSSE3)
		features |= MG_FEAT_SSSE3;
	if (c & bit_SSE4_1)
		features |= MG_FEAT_SSE4_1;
	if (c & bit_SSE4_2)
		features |= MG_FEAT_SSE4_2;
	if (c & bit_MOVBE)
		features |= MG_FEAT_MOVBE;
	return features;
}

unsigned mg_cpu_detect(void)
{
	unsigned a, b, c, d, features = 0;
	uint64_t xcr0 = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (d & bit_SSE)
		features |= MG_FEAT_SSE;
	if (d & bit_SSE2)
		features |= MG_FEAT_SSE2;
	features |= ecx1_features(c);
	if (c & bit_OSXSAVE)
		xcr0 = read_xcr0();
	int os_avx = (xcr0 & 0x6) == 0x6;      /* SSE and AVX state */
	int os_avx512 = (xcr0 & 0xe6) == 0xe6; /* plus opmask and ZMM state */
	if ((c & bit_AVX) && os_avx)
		features |= MG_FEAT_AVX;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return features;
	if ((b & bit_AVX2) && os_avx)
		features |= MG_FEAT_AVX2;
	if ((b & bit_AVX512F) && os_avx512)
		features |= MG_FEAT_AVX512F;
	if ((b & bit_AVX512BW) && os_avx512)
		features |= MG_FEAT_AVX512BW;
	if (b & (1u << 9))
		features |= MG_FEAT_ERMS;
	if (d & (1u << 4))
		features |= MG_FEAT_FSRM;
	if ((b & bit_AVX512VL) && os_avx512)
		features |= MG_FEAT_AVX512VL;
	if ((b & bit_AVX512DQ) && os_avx512)
		features |= MG_FEAT_AVX512DQ;
	if (b & bit_BMI)
		features |= MG_FEAT_BMI1;
	if (b & bit_BMI2)
		features |= MG_FEAT_BMI2;
	if (b & bit_RTM)
		features |= MG_FEAT_RTM;
	if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_LZCNT))
		features |= MG_FEAT_LZCNT;
	/* Leaf 7, subleaf 1, EAX bit 11: fast short REP STOSB. */
	if (__get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 11)))
		features |= MG_FEAT_FSRS;
	return features;
}

/* x86-64's linear address masking (LAM) would ignore some upper bits; no
 * kernel here enables it. */
int mg_cpu_tbi(void)
{
	return 0;
}

#if defined(__i386__)
/* gs's selector as the C library loaded it at startup: one GDT entry for
 * every thread (each thread's descriptor in it is its own). */
static uint16_t thread_gs;

__attribute__((constructor)) static void read_thread_gs(void)
{
	__asm__ volatile("movw %%gs, %0" : "=r"(thread_gs));
}
#endif

unsigned mg_cpu_handler_entry(void)
{
	__asm__ volatile("cld" : : : "memory");
#if defined(__i386__)
	uint16_t gs;

	__asm__ volatile("movw %%gs, %0" : "=r"(gs) : : "memory");
	if (gs != thread_gs) {
		__asm__ volatile("movw %0, %%gs" : : "r"(thread_gs) : "memory");
		return 0x10000u | gs;
	}
#endif
	return 0;
}

void mg_cpu_describe_thread_pointer(unsigned foreign, char *out, size_t size)
{
#if defined(__i386__)
	snprintf(out, size, "gs held selector 0x%x, not the thread's 0x%x", foreign & 0xffffu,
		 thread_gs);
#else
	snprintf(out, size, "the thread pointer was not the thread's (0x%x)", foreign);
#endif
}

void mg_cpu_reset_state(void)
{
	static const uint32_t mxcsr_default = 0x1f80;
	static const uint16_t x87_cw_default = 0x037f;

	__asm__ volatile("cld\n\tfldcw %0" : : "m"(x87_cw_default));
#if defined(__i386__)
	if (!mg_abi_has_sse)
		return;
#endif
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr_default));
}

#if defined(__x86_64__)
#define VECTOR_CLOBBER(n) : "xmm" #n
#else
/* The i386 harness is built without SSE: the compiler keeps nothing there
 * (the C library may, hence the loads). */
#define VECTOR_CLOBBER(n)
#endif

void mg_cpu_define_vectors(void)
{
	/* 32 bytes a register: with AVX a VEX load clears the upper half too. */
	static const unsigned char zero[32] __attribute__((aligned(32)));

#if defined(__i386__)
	if (!mg_abi_has_sse)
		return;
#endif
	/* The hardware's AVX, hidden or not (mg_cpu_detect: this unit's). */
	if (mg_cpu_detect() & MG_FEAT_AVX) {
#define LOAD_YMM(n) __asm__ volatile("vmovdqa %0, %%ymm" #n : : "m"(zero) VECTOR_CLOBBER(n))
		LOAD_YMM(0); LOAD_YMM(1); LOAD_YMM(2); LOAD_YMM(3);
		LOAD_YMM(4); LOAD_YMM(5); LOAD_YMM(6); LOAD_YMM(7);
#if defined(__x86_64__)
		LOAD_YMM(8); LOAD_YMM(9); LOAD_YMM(10); LOAD_YMM(11);
		LOAD_YMM(12); LOAD_YMM(13); LOAD_YMM(14); LOAD_YMM(15);
#endif
#undef LOAD_YMM
		return;
	}
#define LOAD_XMM(n) __asm__ volatile("movdqa %0, %%xmm" #n : : "m"(zero) VECTOR_CLOBBER(n))
	LOAD_XMM(0); LOAD_XMM(1); LOAD_XMM(2); LOAD_XMM(3);
	LOAD_XMM(4); LOAD_XMM(5); LOAD_XMM(6); LOAD_XMM(7);
#if defined(__x86_64__)
	LOAD_XMM(8); LOAD_XMM(9); LOAD_XMM(10); LOAD_XMM(11);
	LOAD_XMM(12); LOAD_XMM(13); LOAD_XMM(14); LOAD_XMM(15);
#endif
#undef LOAD_XMM
}
#undef VECTOR_CLOBBER
