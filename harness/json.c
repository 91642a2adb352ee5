#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) static void put(struct mg_json *j, const char *format, ...)
{
	va_list args;
	int n;

	if (j->overflow)
		return;
	va_start(args, format);
	n = vsnprintf(j->text + j->used, sizeof j->text - j->used, format, args);
	va_end(args);
	if (n < 0 || (size_t)n >= sizeof j->text - j->used)
		j->overflow = 1;
	else
		j->used += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped; other
 * bytes as they are (the harness's text is ASCII, paths are the user's). */
static void put_string(struct mg_json *j, const char *s)
{
	put(j, "\"");
	for (; *s && !j->overflow; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			put(j, "\\%c", ch);
		else if (ch == '\n')
			put(j, "\\n");
		else if (ch == '\t')
			put(j, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			put(j, "\\u%04x", ch);
		else
			put(j, "%c", ch);
	}
	put(j, "\"");
}

/* The comma and the key before a value (no key inside an array). */
static void member(struct mg_json *j, const char *key)
{
	if (j->comma)
		put(j, ",");
	if (key) {
		put_string(j, key);
		put(j, ":");
	}
	j->comma = 1;
}

void mg_json_start(struct mg_json *j, const char *kind)
{
	j->used = 0;
	j->overflow = 0;
	j->comma = 0;
	put(j, "{");
	mg_json_string(j, "record", kind);
}

void mg_json_string(struct mg_json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		put_string(j, value);
	else
		put(j, "null");
}

void mg_json_int(struct mg_json *j, const char *key, long long value)
{
	member(j, key);
	put(j, "%lld", value);
}

void mg_json_uint(struct mg_json *j, const char *key, unsigned long long value)
{
	member(j, key);
	put(j, "%llu", value);
}

void mg_json_real(struct mg_json *j, const char *key, double value)
{
	member(j, key);
	if (isfinite(value))
		put(j, "%.3f", value);
	else
		put(j, "null");
}

void mg_json_bool(struct mg_json *j, const char *key, int value)
{
	member(j, key);
	put(j, value ? "true" : "false");
}

void mg_json_null(struct mg_json *j, const char *key)
{
	member(j, key);
	put(j, "null");
}

void mg_json_open_object(struct mg_json *j, const char *key)
{
	member(j, key);
	put(j, "{");
	j->comma = 0;
}

void mg_json_close_object(struct mg_json *j)
{
	put(j, "}");
	j->comma = 1;
}

void mg_json_open_array(struct mg_json *j, const char *key)
{
	member(j, key);
	put(j, "[");
	j->comma = 0;
}

void mg_json_close_array(struct mg_json *j)
{
	put(j, "]");
	j->comma = 1;
}

int mg_json_write(struct mg_json *j, FILE *out)
{
	put(j, "}\n");
	if (j->overflow) {
		fprintf(stderr, "memgate: a record did not fit in %d bytes; not written\n",
			MG_JSON_MAX);
		return 0;
	}
	if (fwrite(j->text, 1, j->used, out) != j->used || fflush(out) != 0) {
		fprintf(stderr, "memgate: cannot write a record: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}
