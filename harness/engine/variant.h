/* The variant table's types: what a routine under test is, what it
 * promises and what it needs from the CPU. */
#ifndef MG_VARIANT_H
#define MG_VARIANT_H

#include <stddef.h>
#include <stdint.h>

/* New operations go last so that the others keep their numbers (the fuzz
 * families are bit masks of them). The user copies are the kernel's
 * raw_copy_from_user, raw_copy_to_user and clear_user primitives: the user
 * side may fault at any byte (docs/usercopy.md). */
enum mg_op {
	MG_MEMCPY,
	MG_MEMMOVE,
	MG_MEMSET,
	MG_COPY_PAGE,
	MG_CLEAR_PAGE,
	MG_MEMPCPY,
	MG_COPY_FROM_USER,
	MG_COPY_TO_USER,
	MG_CLEAR_USER,
	MG_OP_COUNT
};

enum mg_ret {
	MG_RET_DST,  /* returns its first argument */
	MG_RET_VOID, /* returns nothing (page routines) */
	MG_RET_DST_END, /* returns dst + n (mempcpy) */
	MG_RET_UNCOPIED, /* returns the bytes it did not copy (the user copies) */
};

/* What the caller promises: the variant may rely on these. */
struct mg_contract {
	unsigned src_align;    /* required source alignment in bytes (1: none) */
	unsigned dst_align;    /* required destination alignment (1: none) */
	unsigned len_multiple; /* length is a multiple of this (1: any) */
	size_t fixed_len;      /* non-zero: the only length (page routines) */
	unsigned kernel;       /* MG_KERNEL bits: kernel code, held to the
				* stricter register rules (aarch64: x18 is
				* reserved; x86-64: no vector or x87 state
				* unless it says it uses it) */
};

#define MG_CONTRACT_ANY                                                                            \
	{                                                                                          \
		1, 1, 1, 0, 0                                                                      \
	}
#define MG_CONTRACT_PAGE                                                                           \
	{                                                                                          \
		4096, 4096, 4096, 4096, 0                                                          \
	}
/* Kernel code, and kernel code that declares it uses the FPU (runs between
 * kernel_fpu_begin and kernel_fpu_end, so may touch vector and x87 state). */
#define MG_KERNEL	   1u
#define MG_KERNEL_USES_FPU 2u
/* A kernel's page routine: the page contract, and the kernel's register rules. */
#define MG_CONTRACT_KERNEL_PAGE                                                                    \
	{                                                                                          \
		4096, 4096, 4096, 4096, 1                                                          \
	}
#define MG_CONTRACT(src_align, dst_align, len_multiple)                                            \
	{                                                                                          \
		src_align, dst_align, len_multiple, 0, 0                                           \
	}
/* A kernel user copy: any length and alignment, the kernel's register rules. */
#define MG_CONTRACT_KERNEL_USER                                                                    \
	{                                                                                          \
		1, 1, 1, 0, 1                                                                      \
	}
/* Any contract, with the kernel's rules (kernel: MG_KERNEL bits). */
#define MG_CONTRACT_KERNEL(src_align, dst_align, len_multiple, fixed_len, kernel)                  \
	{                                                                                          \
		src_align, dst_align, len_multiple, fixed_len, kernel                              \
	}

/* CPU features a variant needs (bit mask; see cpu.h for detection). */
enum mg_feature {
	MG_FEAT_SSE2 = 1u << 0,
	MG_FEAT_AVX = 1u << 1,
	MG_FEAT_AVX2 = 1u << 2,
	MG_FEAT_AVX512F = 1u << 3,
	MG_FEAT_AVX512BW = 1u << 4,
	MG_FEAT_ERMS = 1u << 5,
	MG_FEAT_FSRM = 1u << 6,
	MG_FEAT_SSE = 1u << 7, /* i386: not every CPU has it */
	/* aarch64: the DC ZVA block size (DCZID_EL0) the code assumes, and
	 * optional extensions. qemu's -cpu model decides them. */
	MG_FEAT_ZVA64 = 1u << 8,
	MG_FEAT_ZVA256 = 1u << 9,
	MG_FEAT_ZVA512 = 1u << 10,
	MG_FEAT_SVE = 1u << 11,
	MG_FEAT_MOPS = 1u << 12,
	MG_FEAT_SME = 1u << 13,
	/* armhf: Advanced SIMD (HWCAP's NEON), and the 32 double registers
	 * d16-d31 (VFPD32), which Debian's baseline, VFPv3-D16, lacks. */
	MG_FEAT_NEON = 1u << 14,
	MG_FEAT_VFPD32 = 1u << 15,
	/* What real routines (glibc's multiarch, the kernel's) need besides;
	 * bits 8-13 are aarch64's, 14-15 armhf's (above). */
	MG_FEAT_SSE3 = 1u << 16,
	MG_FEAT_SSSE3 = 1u << 17,
	MG_FEAT_SSE4_1 = 1u << 18,
	MG_FEAT_SSE4_2 = 1u << 19,
	MG_FEAT_AVX512VL = 1u << 20,
	MG_FEAT_AVX512DQ = 1u << 21,
	MG_FEAT_BMI1 = 1u << 22,
	MG_FEAT_BMI2 = 1u << 23,
	MG_FEAT_RTM = 1u << 24,
	MG_FEAT_MOVBE = 1u << 25,
	MG_FEAT_LZCNT = 1u << 26,
	/* Fast short REP STOSB: a speed fact, as ERMS and FSRM are (the
	 * kernel's memset_64.S takes rep stosb alone on such a CPU). */
	MG_FEAT_FSRS = 1u << 27,
	/* riscv64: the vector extension (V, as HWCAP has it) and the bit
	 * manipulation extensions, as qemu's -cpu rv64 models them (zba=,
	 * zbb=, zbs=). The last bits: the mask is full. */
	MG_FEAT_V = 1u << 28,
	MG_FEAT_ZBA = 1u << 29,
	MG_FEAT_ZBB = 1u << 30,
	MG_FEAT_ZBS = 1u << 31,
};

/* The features that say how fast an instruction is, not whether it runs:
 * every x86 CPU runs rep movsb and rep stosb, ERMS, FSRM and FSRS only make
 * them fast. A variant declaring them still says which CPU selects it (its
 * records and reports name them), but none keeps it from running: it runs,
 * and is judged, on every CPU (mg_cpu_missing). Not the DC ZVA block sizes:
 * code assuming one clears the wrong bytes on a CPU with another. */
#define MG_FEAT_SPEED_ONLY (MG_FEAT_ERMS | MG_FEAT_FSRM | MG_FEAT_FSRS)

typedef void *(*mg_copy_fn)(void *dst, const void *src, size_t n);
typedef void *(*mg_set_fn)(void *dst, int c, size_t n);
typedef void (*mg_copy_page_fn)(void *to, void *from);
typedef void (*mg_clear_page_fn)(void *page);
/* As the kernel declares them: the count of bytes not copied (not cleared). */
typedef unsigned long (*mg_ucopy_fn)(void *to, const void *from, unsigned long n);
typedef unsigned long (*mg_uclear_fn)(void *to, unsigned long n);

struct mg_variant {
	const char *name; /* unique: "memmove_bytewise" */
	enum mg_op op;
	const char *arch;   /* "x86_64", "generic", ... */
	const char *symbol; /* the entry point's name, for messages */
	union {
		mg_copy_fn copy; /* memcpy, memmove, mempcpy */
		mg_set_fn set;
		mg_copy_page_fn copy_page;
		mg_clear_page_fn clear_page;
		mg_ucopy_fn ucopy; /* copy_from_user, copy_to_user */
		mg_uclear_fn uclear;
	} entry;
	enum mg_ret ret;
	struct mg_contract contract;
	unsigned features; /* enum mg_feature bits */
	unsigned expect;   /* 0: must pass; else mask of verdict classes it must fail with */
	const char *about; /* one line: where it comes from */
	/* A register convention of its own (convention.h, docs/conventions.md),
	 * or NULL: the C convention. */
	const char *convention;
};

#endif
