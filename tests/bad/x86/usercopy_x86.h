/* tests/bad/x86/usercopy_x86.h: one source for the broken variants on
 * x86-64 and i386 (tests/bad/x86/: the user copies', the non-temporal
 * stores'; built for both). The
 * routines are written once with the word-sized registers and mnemonics
 * below; UC_ARGS3/UC_ARGS2 put the arguments where the x86-64 C
 * convention has them (to in DI, from in SI, n in DX; i386's cdecl passes
 * them on the stack, and its esi and edi are callee-saved: saved here,
 * put back by UC_RET). */
#ifndef MG_TESTS_USERCOPY_X86_H
#define MG_TESTS_USERCOPY_X86_H
#include "asmdefs.h"

#if defined(__x86_64__)
#define UC_NAME(name) mg_x86_64_##name
#define AX %rax
#define CX %rcx
#define DX %rdx
#define SI %rsi
#define DI %rdi
#define WORD 8
#define P(insn) insn##q
#define UC_ARGS3
#define UC_ARGS2
#define UC_RET ret
#else
#define UC_NAME(name) mg_i386_##name
#define AX %eax
#define CX %ecx
#define DX %edx
#define SI %esi
#define DI %edi
#define WORD 4
#define P(insn) insn##l
/* esi, edi saved; then 4(%esp) = to, 8 = from, 12 = n are at 12, 16, 20. */
#define UC_ARGS3                                                                                   \
	pushl	%esi;                                                                              \
	pushl	%edi;                                                                              \
	movl	12(%esp), %edi;                                                                    \
	movl	16(%esp), %esi;                                                                    \
	movl	20(%esp), %edx
/* Two arguments (copy_page's to and from): at 12 and 16. */
#define UC_ARGS2                                                                                   \
	pushl	%esi;                                                                              \
	pushl	%edi;                                                                              \
	movl	12(%esp), %edi;                                                                    \
	movl	16(%esp), %esi
#define UC_RET                                                                                     \
	popl	%edi;                                                                              \
	popl	%esi;                                                                              \
	ret
#endif
/* log2 of WORD, for the shifts. */
#define WORD_SHIFT (WORD / 4 + 1)

#endif
