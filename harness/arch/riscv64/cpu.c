/* riscv64: the extensions a variant may assume (--requires v, zba, zbb,
 * zbs). V is HWCAP's bit 'v' (the kernel sets it only where it lets user
 * code use the vector unit). The bit-manipulation extensions have no
 * HWCAP bit, and qemu 7.2's user mode has no riscv_hwprobe: each is tried,
 * one instruction in a child, which dies of SIGILL where the CPU lacks it.
 * Under qemu-user the -cpu model decides them all (rv64,v=true,vlen=N;
 * rv64,zbb=false). VLEN is the model's, one per process (no prctl chooses
 * it as SVE's does): the sweep runs once per model instead (Makefile). */
#include "cpu.h"
#include "variant.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#define HWCAP_V (1ul << ('v' - 'a'))

/* One instruction of each extension, as raw encodings, so that the C code
 * is built for rv64gc whatever the probe asks about. */
static void sh1add(void) /* Zba: sh1add a0, a0, a0 */
{
	__asm__ volatile(".insn r 0x33, 2, 0x10, a0, a0, a0" : : : "a0");
}

static void andn(void) /* Zbb: andn a0, a0, a0 */
{
	__asm__ volatile(".insn r 0x33, 7, 0x20, a0, a0, a0" : : : "a0");
}

static void bset(void) /* Zbs: bset a0, a0, a0 */
{
	__asm__ volatile(".insn r 0x33, 1, 0x14, a0, a0, a0" : : : "a0");
}

/* Whether `insn` runs, in a child, so that SIGILL costs the child. */
static int runs(void (*insn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		insn();
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

unsigned mg_cpu_detect(void)
{
	unsigned features = 0;

	if (getauxval(AT_HWCAP) & HWCAP_V)
		features |= MG_FEAT_V;
	if (runs(sh1add))
		features |= MG_FEAT_ZBA;
	if (runs(andn))
		features |= MG_FEAT_ZBB;
	if (runs(bset))
		features |= MG_FEAT_ZBS;
	return features;
}

/* RISC-V has no top-byte-ignore in Linux user space (the pointer-masking
 * extensions are not enabled here). */
int mg_cpu_tbi(void)
{
	return 0;
}

/* frm is the only control state a variant may leave changed that the C
 * code after it depends on; Linux starts a process with it 0 (round to
 * nearest, ties to even). vstart, where V is, must be zero again too. */
void mg_cpu_reset_state(void)
{
	__asm__ volatile("fsrm zero");
	if (getauxval(AT_HWCAP) & HWCAP_V)
		__asm__ volatile("csrwi 0x008, 0"); /* vstart */
}

/* The handler's thread-local accesses go through tp, which a routine must
 * not change (docs/contract.md, R5: checked after the call); nothing to
 * put right here. */
unsigned mg_cpu_handler_entry(void)
{
	return 0;
}

void mg_cpu_describe_thread_pointer(unsigned foreign, char *out, size_t size)
{
	snprintf(out, size, "the thread pointer was not the thread's (0x%x)", foreign);
}

/* Nothing to do: valgrind has no riscv64 port here (memcheck.c's requests
 * compile to nothing), so no call runs under memcheck. */
void mg_cpu_define_vectors(void)
{
}
