/* x86 (64- and 32-bit) machine context: the page-fault error code says
 * whether a fault was a read or a write; trap 13 is a general-protection
 * fault, which Linux reports as SIGSEGV with address 0.
 *
 * qemu-user (how i386 programs run on a kernel without IA-32 emulation)
 * leaves the trap number at -1 but does fill the error code, from the
 * access it emulated. Without a trap number the signal says what happened:
 * SEGV_MAPERR or SEGV_ACCERR comes from a page fault, SI_KERNEL from a #GP.
 * The error code is then trusted only if it looks like a user-mode page
 * fault's (U bit set); otherwise the access stays unknown, and the fault is
 * reported as a crash rather than guessed at. */
#include "fault.h"

#include <signal.h>
#include <ucontext.h>

#define X86_TRAP_GP  13
#define X86_TRAP_PF  14
#define X86_PF_WRITE 0x2
#define X86_PF_USER  0x4

static enum mg_access page_fault_access(greg_t err)
{
	return err & X86_PF_WRITE ? MG_ACCESS_WRITE : MG_ACCESS_READ;
}

/* No trap number: tell the fault from the signal alone. */
static void decode_from_signal(greg_t err, struct mg_fault *f)
{
	if (f->signo != SIGSEGV)
		return;
	if (f->code == SI_KERNEL)
		f->general_protection = 1;
	else if ((f->code == SEGV_MAPERR || f->code == SEGV_ACCERR) && (err & X86_PF_USER))
		f->access = page_fault_access(err);
}

void mg_fault_decode_context(const void *ucontext, struct mg_fault *f)
{
	const ucontext_t *uc = ucontext;
	const greg_t *regs = uc->uc_mcontext.gregs;

#if defined(__x86_64__)
	f->pc = (void *)regs[REG_RIP];
#else
	f->pc = (void *)regs[REG_EIP];
#endif
	f->access = MG_ACCESS_UNKNOWN;
	if (regs[REG_TRAPNO] == X86_TRAP_GP)
		f->general_protection = 1;
	else if (regs[REG_TRAPNO] == X86_TRAP_PF)
		f->access = page_fault_access(regs[REG_ERR]);
	else if (regs[REG_TRAPNO] < 0)
		decode_from_signal(regs[REG_ERR], f);
}
