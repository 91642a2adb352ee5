/* A register pushed or popped with the CFI that says where it is, so that
 * a debugger stopped in a callee unwinds through the trampolines
 * (trampoline_x86_64.S, trampoline_i386.S), and their saves of the
 * callee-saved registers in one line each. */
#ifndef MG_CFI_PUSH_H
#define MG_CFI_PUSH_H

#if defined(__x86_64__)
#define MG_PUSH(reg) pushq reg; .cfi_adjust_cfa_offset 8; .cfi_rel_offset reg, 0
#define MG_POP(reg)  popq reg; .cfi_adjust_cfa_offset -8; .cfi_restore reg
#define MG_SAVE_CALLEE_SAVED                                                                       \
	MG_PUSH(%rbp); MG_PUSH(%rbx); MG_PUSH(%r12); MG_PUSH(%r13); MG_PUSH(%r14); MG_PUSH(%r15)
#define MG_RESTORE_CALLEE_SAVED                                                                    \
	MG_POP(%r15); MG_POP(%r14); MG_POP(%r13); MG_POP(%r12); MG_POP(%rbx); MG_POP(%rbp)
#else
#define MG_PUSH(reg) pushl reg; .cfi_adjust_cfa_offset 4; .cfi_rel_offset reg, 0
#define MG_POP(reg)  popl reg; .cfi_adjust_cfa_offset -4; .cfi_restore reg
#define MG_SAVE_CALLEE_SAVED	MG_PUSH(%ebp); MG_PUSH(%ebx); MG_PUSH(%esi); MG_PUSH(%edi)
#define MG_RESTORE_CALLEE_SAVED MG_POP(%edi); MG_POP(%esi); MG_POP(%ebx); MG_POP(%ebp)
#endif

#endif
