#include "finding.h"
#include "memcheck.h"
#include "table.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

/* Set by the Makefile in a build for another arch than the host's. */
#ifndef MG_FOREIGN_ARCH
#define MG_FOREIGN_ARCH ""
#endif

void mg_finding_signature(const struct mg_case *c, const struct mg_verdict *v, char *out,
			  size_t size)
{
	char site[MG_DETAIL_MAX];

	mg_verdict_site(v, site, sizeof site);
	snprintf(out, size, "%s %s %s", c->variant->name, mg_class_name(v->cls), site);
}

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
	mg_case_replay(c, text, sizeof text);
	/* What only memcheck sees replays only under it. */
	fprintf(out, "  replay:    %s%s\n",
		strstr(v->detail, "(memcheck") ? "valgrind -q " MG_MEMCHECK_FLAGS " " : "", text);
}

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

static int write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
	return ok;
}

int mg_finding_save(const char *dir, const struct mg_target *t, const struct mg_case *c,
		    const struct mg_verdict *v, const uint8_t *data, size_t size)
{
	char path[4096];
	size_t n;
	FILE *f;
	int ok;

	if (!dir || !*dir)
		return 1;
	mkdir(dir, 0777);
	n = (size_t)snprintf(path, sizeof path - 4, "%s/%s-%s-%016" PRIx64, dir, c->variant->name,
			     mg_class_name(v->cls), fnv1a(data, size));
	strcpy(path + n, ".in");
	if (!write_file(path, data, size))
		return 0;
	strcpy(path + n, ".txt");
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "memgate: cannot write %s: %s\n", path, strerror(errno));
		return 0;
	}
	mg_finding_print(f, t, c, v);
	path[n] = '\0';
	ok = fprintf(f, "  repro:     scripts/repro%s%s --target=%s%s%s %s.in\n",
		     *MG_FOREIGN_ARCH ? " --arch=" : "", MG_FOREIGN_ARCH, t->family,
		     t->pinned ? " --variant=" : "", t->pinned ? c->variant->name : "", path) > 0;
	if (fclose(f) != 0 || !ok) {
		fprintf(stderr, "memgate: cannot write %s.txt: %s\n", path, strerror(errno));
		return 0;
	}
	return 1;
}
