/* The message-passing run (publish.h). Each round the writer (the calling
 * thread) runs the routine so that every byte of the buffer changes, then
 * stores the round's number with release order; the reader, on another
 * CPU, waits for that number with acquire order, reads the buffer back
 * from its end (where the routine's last stores are, the likeliest still
 * in flight) one byte per 64-byte line, and acknowledges. The writer
 * starts the next round only after that, so each round's buffer is read
 * whole before it changes again. */
#include "publish.h"
#include "call.h"
#include "case.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64

struct shared {
	enum mg_op op;
	unsigned char *dst;
	size_t len;
	unsigned long long rounds, stale;
	int reader_cpu;
	_Atomic unsigned long long published, read;
	int pinned;
};

/* The byte every position of the buffer holds after round k. */
static unsigned char round_byte(unsigned long long k, enum mg_op op)
{
	if (op == MG_CLEAR_PAGE)
		return 0;
	return (unsigned char)(k & 1 ? 0xa5 : 0x5a);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

static void *read_rounds(void *arg)
{
	struct shared *s = arg;

	s->pinned = pin(s->reader_cpu);
	for (unsigned long long k = 1; k <= s->rounds; k++) {
		while (atomic_load_explicit(&s->published, memory_order_acquire) != k)
			;
		unsigned char want = round_byte(k, s->op);
		int stale = s->dst[s->len - 1] != want;
		for (size_t i = s->len; i > 0 && !stale;) {
			i = i > LINE ? i - LINE : 0;
			stale = s->dst[i] != want;
		}
		s->stale += stale;
		atomic_store_explicit(&s->read, k, memory_order_release);
	}
	return NULL;
}

/* The two CPUs this thread may run on, or 0 with why not. */
static int two_cpus(int *a, int *b, char *why, size_t size)
{
	cpu_set_t set;
	int found = 0;

	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		snprintf(why, size, "cannot read this thread's CPUs (sched_getaffinity)");
		return 0;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			*(found++ ? b : a) = cpu;
	if (found < 2)
		snprintf(why, size, "one CPU: a reader on another CPU is what could see the stores "
				    "out of order");
	return found == 2;
}

static int cannot_run_here(const struct mg_variant *v, char *why, size_t size)
{
	if (*mg_runner) {
		snprintf(why, size,
			 "under %s: an emulator makes the routine's stores the host's ordinary ones, "
			 "in order",
			 mg_runner);
		return 1;
	}
	if (mg_op_is_user(v->op)) {
		snprintf(why, size, "a user copy: its run needs the fault emulation (docs/usercopy.md)");
		return 1;
	}
	return 0;
}

/* One round of the writer: the routine changes every byte of dst. */
static void write_round(const struct mg_variant *v, struct shared *s, unsigned char *const src[2],
			unsigned long long k)
{
	unsigned char b = round_byte(k, v->op);

	if (v->op == MG_CLEAR_PAGE)
		memset(s->dst, 0xff, s->len); /* ordinary stores: the old bytes */
	mg_call_direct(v, s->dst, src[k & 1], b, s->len);
}

int mg_publish(const struct mg_variant *v, size_t len, unsigned long long rounds,
	       struct mg_publish_result *out)
{
	struct shared s = {.len = v->contract.fixed_len ? v->contract.fixed_len : len,
			   .rounds = rounds};
	unsigned char *src[2] = {NULL, NULL};
	int writer_cpu = 0;
	pthread_t reader;
	int ran = -1;

	memset(out, 0, sizeof *out);
	if (cannot_run_here(v, out->why, sizeof out->why) ||
	    !two_cpus(&writer_cpu, &s.reader_cpu, out->why, sizeof out->why))
		return 0;
	s.op = v->op;
	s.dst = aligned_alloc(4096, (s.len + 4095) / 4096 * 4096);
	src[0] = aligned_alloc(4096, (s.len + 4095) / 4096 * 4096);
	src[1] = aligned_alloc(4096, (s.len + 4095) / 4096 * 4096);
	if (!s.dst || !src[0] || !src[1]) {
		snprintf(out->why, sizeof out->why, "cannot allocate 3 buffers of %zu bytes", s.len);
		goto done;
	}
	memset(src[0], round_byte(0, v->op), s.len);
	memset(src[1], round_byte(1, v->op), s.len);
	memset(s.dst, 0, s.len);
	if (!pin(writer_cpu) || pthread_create(&reader, NULL, read_rounds, &s) != 0) {
		snprintf(out->why, sizeof out->why, "cannot pin this thread or start the reader");
		goto done;
	}
	for (unsigned long long k = 1; k <= rounds; k++) {
		write_round(v, &s, src, k);
		atomic_store_explicit(&s.published, k, memory_order_release);
		while (atomic_load_explicit(&s.read, memory_order_acquire) != k)
			;
	}
	pthread_join(reader, NULL);
	if (!s.pinned) {
		snprintf(out->why, sizeof out->why, "cannot pin the reader to CPU %d", s.reader_cpu);
		goto done;
	}
	*out = (struct mg_publish_result){rounds, s.stale, writer_cpu, s.reader_cpu, ""};
	ran = 1;
done:
	free(s.dst);
	free(src[0]);
	free(src[1]);
	return ran;
}
