/* x86 (64- and 32-bit) machine context: the page-fault error code says
 * whether a fault was a read or a write; trap 13 is a general-protection
 * fault, which Linux reports as SIGSEGV with address 0. */
#include "fault.h"

#include <signal.h>
#include <ucontext.h>

#define X86_TRAP_GP  13
#define X86_TRAP_PF  14
#define X86_PF_WRITE 0x2

void mg_fault_decode_context(const void *ucontext, struct mg_fault *f)
{
	const ucontext_t *uc = ucontext;
	const greg_t *regs = uc->uc_mcontext.gregs;

#if defined(__x86_64__)
	f->pc = (void *)regs[REG_RIP];
#else
	f->pc = (void *)regs[REG_EIP];
#endif
	f->general_protection = regs[REG_TRAPNO] == X86_TRAP_GP;
	if (regs[REG_TRAPNO] == X86_TRAP_PF)
		f->access = regs[REG_ERR] & X86_PF_WRITE ? MG_ACCESS_WRITE : MG_ACCESS_READ;
	else
		f->access = MG_ACCESS_UNKNOWN;
}
