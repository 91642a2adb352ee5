/* A qemu-user TCG plugin that reports misaligned loads and stores: every
 * instruction of the symbols it is given whose access is not aligned to
 * its width (an element's, for a vector access). On RISC-V such an access
 * may trap, be emulated by the kernel or firmware at a cost of hundreds of
 * cycles, or run fast; qemu-user performs it silently, so the gate sees
 * them here (docs/arches.md, "Misaligned accesses").
 *
 * A host program (built with the host's compiler, whatever ARCH is),
 * loaded by qemu-riscv64 -plugin FILE,out=PATH[,sym=NAME]...: with sym=,
 * only the instructions of those symbols (qemu's own symbol lookup in
 * the program's ELF symbol table) are watched; without, every one is.
 * Each instruction's first misaligned access in a process is one JSON line
 * appended to PATH (pc; where the program's code was loaded, start_code,
 * so that a reader can map pc to the link-time address; the symbol, the
 * address, the width, load or store). The file is opened for each line: the guest
 * program may close any descriptor, and qemu's are the guest's.
 *
 * The plugin interface of qemu 7.2 (QEMU_PLUGIN_VERSION 1) is declared here
 * from its documentation: Debian ships no qemu-plugin.h. */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
uint64_t qemu_plugin_start_code(void);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAX_SYMBOLS 1024

static const char *out_path;
static char *watched[MAX_SYMBOLS];
static unsigned n_watched;

/* One watched instruction: made when it is first translated, kept (a
 * retranslation of the same pc finds it again) for the whole run. */
struct insn {
	uint64_t pc;
	const char *symbol;
	bool reported;
	struct insn *next;
};

#define BUCKETS 4096u
static struct insn *table[BUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A fork (the guest's fork is qemu's) copies the table: the lock is held
 * across it, so the child never starts with it taken by a thread it does
 * not have. */
static void lock_table(void)
{
	pthread_mutex_lock(&lock);
}

static void unlock_table(void)
{
	pthread_mutex_unlock(&lock);
}

static bool is_watched(const char *symbol)
{
	if (n_watched == 0)
		return true;
	if (!symbol)
		return false;
	for (unsigned i = 0; i < n_watched; i++)
		if (strcmp(watched[i], symbol) == 0)
			return true;
	return false;
}

static struct insn *insn_at(uint64_t pc, const char *symbol)
{
	pthread_mutex_lock(&lock);
	struct insn **slot = &table[(pc >> 1) % BUCKETS];
	struct insn *it = *slot;
	while (it && it->pc != pc)
		it = it->next;
	if (!it) {
		it = calloc(1, sizeof *it);
		if (it) {
			it->pc = pc;
			it->symbol = symbol ? symbol : "";
			it->next = *slot;
			*slot = it;
		}
	}
	pthread_mutex_unlock(&lock);
	return it;
}

/* Appends one line; a failed write is itself a line on stderr, which the
 * gate reads as "could not judge" (it cannot tell a clean run from one
 * whose report was lost otherwise). */
static void report(const struct insn *it, uint64_t addr, unsigned width, bool store)
{
	char line[512];
	int n = snprintf(line, sizeof line,
			 "{\"record\":\"misaligned\",\"pc\":\"0x%llx\",\"start_code\":\"0x%llx\","
			 "\"symbol\":\"%s\","
			 "\"address\":\"0x%llx\",\"width\":%u,\"access\":\"%s\",\"pid\":%ld}\n",
			 (unsigned long long)it->pc, (unsigned long long)qemu_plugin_start_code(),
			 it->symbol, (unsigned long long)addr, width, store ? "store" : "load",
			 (long)getpid());
	int fd = open(out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (n <= 0 || (size_t)n >= sizeof line || fd < 0 || write(fd, line, (size_t)n) != n)
		fprintf(stderr, "qemu_misaligned: cannot write %s\n", out_path);
	if (fd >= 0)
		close(fd);
}

static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t addr, void *userdata)
{
	(void)vcpu;
	unsigned width = 1u << qemu_plugin_mem_size_shift(info);
	if ((addr & (width - 1)) == 0)
		return;
	struct insn *it = userdata;
	pthread_mutex_lock(&lock);
	bool first = !it->reported;
	it->reported = true;
	if (first)
		report(it, addr, width, qemu_plugin_mem_is_store(info));
	pthread_mutex_unlock(&lock);
}

/* Whether every access of this RISC-V instruction is one byte wide, which
 * is never misaligned: lb, lbu, sb, and the unit-stride and strided vector
 * loads and stores of 8-bit elements (vle8, vse8, vlse8, vl1re8, ...; the
 * indexed ones move SEW-wide data whatever their index width). Watching
 * them would cost a call per byte (a vse8 at VLEN 1024 and LMUL 8 moves
 * 1024) and can find nothing. Compressed instructions have no byte forms
 * (Zcb is not in qemu 7.2). */
static bool only_bytes(const struct qemu_plugin_insn *insn)
{
	if (qemu_plugin_insn_size(insn) != 4)
		return false;
	uint32_t word;
	memcpy(&word, qemu_plugin_insn_data(insn), sizeof word);
	unsigned opcode = word & 0x7f, width = (word >> 12) & 7, mop = (word >> 26) & 3;
	switch (opcode) {
	case 0x03: /* LOAD: lb, lbu */ return width == 0 || width == 4;
	case 0x23: /* STORE: sb */ return width == 0;
	case 0x07: /* LOAD-FP and STORE-FP: width 0 is a vector access of */
	case 0x27: /* 8-bit elements (scalar FP widths are 1 to 4) */
		return width == 0 && (mop == 0 || mop == 2);
	default: return false;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const char *symbol = qemu_plugin_insn_symbol(insn);
		if (!is_watched(symbol) || only_bytes(insn))
			continue;
		struct insn *it = insn_at(qemu_plugin_insn_vaddr(insn), symbol);
		if (it)
			qemu_plugin_register_vcpu_mem_cb(insn, on_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, it);
	}
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		/* Copies: qemu frees its argument strings after loading. */
		if (strncmp(argv[i], "out=", 4) == 0) {
			out_path = strdup(argv[i] + 4);
		} else if (strncmp(argv[i], "sym=", 4) == 0 && n_watched < MAX_SYMBOLS) {
			watched[n_watched++] = strdup(argv[i] + 4);
		} else {
			fprintf(stderr,
				"qemu_misaligned: unknown or one too many argument '%s' (out=PATH, "
				"sym=NAME)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path || !*out_path) {
		fprintf(stderr, "qemu_misaligned: needs out=PATH\n");
		return -1;
	}
	/* The file is this run's from here on (a fork does not come here
	 * again), empty when nothing was misaligned: its absence tells a
	 * reader that the plugin never ran. */
	int fd = open(out_path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "qemu_misaligned: cannot create %s\n", out_path);
		return -1;
	}
	close(fd);
	if (pthread_atfork(lock_table, unlock_table, unlock_table) != 0) {
		fprintf(stderr, "qemu_misaligned: pthread_atfork failed\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
