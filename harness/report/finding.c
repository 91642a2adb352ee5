#include "finding.h"
#include "replay.h"
#include "cpu.h"
#include "record.h"
#include "stop.h"
#include "table.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by the Makefile in a build for another arch than the host's. */
#ifndef MG_FOREIGN_ARCH
#define MG_FOREIGN_ARCH ""
#endif

void mg_finding_print(FILE *out, const struct mg_target *t, const struct mg_case *c,
		      const struct mg_verdict *v)
{
	char text[MG_DETAIL_MAX + 128];

	fprintf(out, "memgate: FINDING in %s: %s: %s\n", c->variant->name, mg_class_name(v->cls),
		v->detail);
	mg_case_describe(c, text, sizeof text);
	fprintf(out, "  case:      %s\n", text);
	mg_finding_signature(c, v, text, sizeof text);
	fprintf(out, "  signature: %s\n", text);
	fprintf(out, "  target:    %s%s\n", t->family, t->pinned ? " (pinned)" : "");
	if (mg_cpu_model())
		fprintf(out, "  cpu model: %s\n", mg_cpu_model());
	mg_finding_replay(c, v, text, sizeof text);
	fprintf(out, "  replay:    %s\n", text);
}

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/* Reports a failed write on stderr; returns 0. */
static int cannot_write(const char *path)
{
	fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
	return 0;
}

static int close_checked(FILE *f, const char *path, int ok)
{
	if (fflush(f) != 0 || ferror(f))
		ok = 0;
	if (fclose(f) != 0)
		ok = 0;
	return ok ? 1 : cannot_write(path);
}

/* Each file of a finding is written whole under a temporary name, then
 * linked to its own: a file of that name already there (the same input,
 * saved before) is kept as it is, never written over, and an interrupted
 * write leaves no half file under the name. */
static FILE *open_new(const char *path, char *tmp, size_t size)
{
	int fd;

	/* A dot file: no reader of the folder takes it for an input, should a
	 * SIGKILL leave it behind. */
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	snprintf(tmp, size, "%.*s.%s.partial-XXXXXX", (int)(base - path), path, base);
	fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask); /* as fopen would make it, not mkstemp's 0600 */
	return fdopen(fd, "w");
}

static int keep_new(const char *tmp, const char *path, int ok)
{
	if (ok && link(tmp, path) != 0 && errno != EEXIST)
		ok = cannot_write(path);
	unlink(tmp);
	return ok;
}

static int write_file(const char *path, const void *data, size_t size)
{
	char tmp[4200];
	FILE *f = open_new(path, tmp, sizeof tmp);

	if (!f)
		return cannot_write(path);
	return keep_new(tmp, path, close_checked(f, path, fwrite(data, 1, size, f) == size));
}

static int write_record(const char *path, const char *stage, const struct mg_case *c,
			const struct mg_verdict *v, const char *input)
{
	struct mg_json j;
	char tmp[4200];
	FILE *f = open_new(path, tmp, sizeof tmp);

	if (!f)
		return cannot_write(path);
	mg_record_finding_build(&j, c, v, stage, input);
	return keep_new(tmp, path, close_checked(f, path, mg_json_write(&j, f)));
}

static int write_report(const char *path, const char *stem, const struct mg_target *t,
			const struct mg_case *c, const struct mg_verdict *v)
{
	char tmp[4200];
	FILE *f = open_new(path, tmp, sizeof tmp);

	if (!f)
		return cannot_write(path);
	mg_finding_print(f, t, c, v);
	fprintf(f, "  repro:     scripts/repro%s%s --target=%s%s%s %s.in\n",
		*MG_FOREIGN_ARCH ? " --arch=" : "", MG_FOREIGN_ARCH, t->family,
		t->pinned ? " --variant=" : "", t->pinned ? c->variant->name : "", stem);
	return keep_new(tmp, path, close_checked(f, path, 1));
}

int mg_finding_save(const char *dir, const struct mg_target *t, const struct mg_case *c,
		    const struct mg_verdict *v, const uint8_t *data, size_t size)
{
	return mg_finding_save_as(dir, "fuzz", t, c, v, data, size, NULL, 0);
}

static int save_files(const char *stem, const char *stage, const struct mg_target *t,
		      const struct mg_case *c, const struct mg_verdict *v, const uint8_t *data,
		      size_t size)
{
	char path[4096], input[4096];

	snprintf(input, sizeof input, "%s.in", stem);
	if (!write_file(input, data, size))
		return 0;
	snprintf(path, sizeof path, "%s.json", stem);
	if (!write_record(path, stage, c, v, input))
		return 0;
	snprintf(path, sizeof path, "%s.txt", stem);
	return write_report(path, stem, t, c, v);
}

int mg_finding_save_as(const char *dir, const char *stage, const struct mg_target *t,
		       const struct mg_case *c, const struct mg_verdict *v, const uint8_t *data,
		       size_t size, char *saved, size_t saved_size)
{
	char stem[4000];
	sigset_t held;
	int ok;

	if (!dir || !*dir)
		return 1;
	mkdir(dir, 0777);
	snprintf(stem, sizeof stem, "%s/%s-%s-%016" PRIx64, dir, c->variant->name,
		 mg_class_name(v->cls), fnv1a(data, size));
	if (saved)
		snprintf(saved, saved_size, "%s.in", stem);
	/* A stop signal waits for the finding's three files. */
	mg_stop_hold(&held);
	ok = save_files(stem, stage, t, c, v, data, size);
	mg_stop_release(&held);
	return ok;
}

static void make_dirs(const char *path)
{
	char part[4096];

	snprintf(part, sizeof part, "%s", path);
	for (char *slash = strchr(part + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(part, 0777);
		*slash = '/';
	}
	mkdir(part, 0777);
}

int mg_findings_dir_ready(const char *dir, char *why, size_t size)
{
	char probe[4200];
	struct stat st;
	int fd;

	make_dirs(dir);
	if (stat(dir, &st) != 0) {
		snprintf(why, size, "cannot write findings in %s: %s", dir, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, size, "cannot write findings in %s: not a directory", dir);
		return 0;
	}
	snprintf(probe, sizeof probe, "%s/.memgate-write-check-XXXXXX", dir);
	fd = mkstemp(probe);
	if (fd < 0) {
		snprintf(why, size, "cannot write findings in %s: %s", dir, strerror(errno));
		return 0;
	}
	close(fd);
	unlink(probe);
	return 1;
}
