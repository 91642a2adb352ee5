/* Run-time CPU feature detection: a variant runs only where its features are
 * (but the speed-only ones, variant.h). */
#ifndef MG_CPU_H
#define MG_CPU_H

/* The features this CPU (and OS) supports, as enum mg_feature bits, less any
 * hidden with mg_cpu_hide(). */
unsigned mg_cpu_features(void);

/* Per-arch: the features the hardware and OS offer (cpu_<arch>.c). */
unsigned mg_cpu_detect(void);
/* Per-arch: puts the flags and control registers a variant may have left
 * changed (direction flag, MXCSR, x87 control word) back to the ABI's
 * defaults; used after a variant was interrupted by a fault. */
void mg_cpu_reset_state(void);

#include <stddef.h>

/* Per-arch, under memcheck only: after a call that may have loaded bytes
 * memgate marked undefined (memcheck.c, nearest_written), loads zeros from
 * memory into the vector registers. At --vex-iropt-level=0, which memgate's
 * memcheck mode needs, memcheck does not take the compilers' zeroing idiom
 * (pxor x, x) for a constant: the harness's own zeroed structs, and the C
 * library's, would inherit the routine's undefined bytes and be reported
 * as memgate's errors. A load from defined memory ends that. */
void mg_cpu_define_vectors(void);

/* Per-arch, first thing in a signal handler, before any thread-local
 * access: puts right what the handler must not take over from the routine
 * it stopped. x86's direction flag, which Linux clears for a handler and
 * qemu-i386 7.2 leaves as the routine had it (its string instructions,
 * and the C library's, would then run backwards). i386's gs, which the
 * kernel leaves as the routine had it: a routine that borrowed it would
 * have the handler's first thread-local access fault (natively the
 * process then dies; qemu-i386 delivers the fault again and again). The
 * handler gets the thread's own gs back, and this returns 0, or, when
 * the routine had the thread pointer elsewhere, nonzero: what it was, for
 * mg_cpu_describe_thread_pointer (a real program's handler would run
 * with it: docs/contract.md, I7). */
unsigned mg_cpu_handler_entry(void);
/* "gs held selector 0x7b, not the thread's 0x33", for a nonzero
 * mg_cpu_handler_entry() result. */
void mg_cpu_describe_thread_pointer(unsigned foreign, char *out, size_t size);

/* The vector lengths a thread may choose (aarch64: SVE's, set with
 * prctl(PR_SVE_SET_VL); docs/contract.md, A12), as a mask: bit k for
 * 16 << k bytes, powers of two from 16 to 256; 0 where there are none. */
#define MG_CPU_VL_MIN  16u
#define MG_CPU_VL_BITS 5u
unsigned mg_cpu_vls(void);
/* Per-arch: the calling thread's vector length becomes `bytes`, one of
 * mg_cpu_vls(), or with 0 the length it had when the program started;
 * a no-op when it already is. Returns 0, or -1 if the system refused. */
int mg_cpu_use_vl(unsigned bytes);
/* Per-arch: the vector length the program started with, in bytes (0
 * where there is none to choose). */
unsigned mg_cpu_default_vl(void);

/* Per-arch: whether the top byte of a user address is ignored (aarch64's
 * TBI: Linux enables it for every user process, docs/contract.md, A14),
 * so that a caller may pass tagged pointers; probed once, in a child. */
int mg_cpu_tbi(void);

/* Pretends the CPU lacks `features`: checks SKIP reporting on a full machine. */
void mg_cpu_hide(unsigned features);

/* Which of `needs` this CPU lacks, less the speed-only features
 * (MG_FEAT_SPEED_ONLY: they never keep a variant from running); when some,
 * names them in `out` ("avx512f,avx512bw") for a SKIP line. */
unsigned mg_cpu_missing(unsigned needs, char *out, unsigned size);

/* The CPU model this run is under (qemu's -cpu, which the runner names in
 * MEMGATE_CPU_MODEL so findings can say it), or NULL. */
const char *mg_cpu_model(void);

/* Name of one feature bit ("avx512f"); NULL if unknown. */
const char *mg_feature_name(unsigned feature);
/* Parses a comma-separated list of names into bits; returns 0 and names the
 * first unknown one in *bad on failure. */
int mg_feature_parse(const char *list, unsigned *out, const char **bad);
/* Writes the names of the bits in `mask`, comma-separated. */
void mg_feature_format(unsigned mask, char *out, unsigned size);

#endif
