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

/* The length of the well-formed UTF-8 sequence at s, or 0 (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF). */
static int utf8_length(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
	int n = 0;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n && (s[1] < lo || s[1] > hi))
		return 0;
	for (int i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, UTF-8
 * as it is, and a byte that is not UTF-8 (a path can hold any) as U+FFFD,
 * so that every record is valid JSON. */
static void put_string(struct mg_json *j, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	put(j, "\"");
	while (*s && !j->overflow) {
		int n = *s < 0x80 ? 1 : utf8_length(s);
		if (*s == '"' || *s == '\\')
			put(j, "\\%c", *s);
		else if (*s == '\n')
			put(j, "\\n");
		else if (*s == '\t')
			put(j, "\\t");
		else if (*s < 0x20 || *s == 0x7f)
			put(j, "\\u%04x", *s);
		else if (n)
			put(j, "%.*s", n, (const char *)s);
		else
			put(j, "\\ufffd");
		s += n ? n : 1;
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

/* An object or an array: its first member takes no comma before it; what
 * follows the container does. */
static void open_container(struct mg_json *j, const char *key, char bracket)
{
	member(j, key);
	put(j, "%c", bracket);
	j->comma = 0;
}

static void close_container(struct mg_json *j, char bracket)
{
	put(j, "%c", bracket);
	j->comma = 1;
}

void mg_json_open_object(struct mg_json *j, const char *key)
{
	open_container(j, key, '{');
}

void mg_json_close_object(struct mg_json *j)
{
	close_container(j, '}');
}

void mg_json_open_array(struct mg_json *j, const char *key)
{
	open_container(j, key, '[');
}

void mg_json_close_array(struct mg_json *j)
{
	close_container(j, ']');
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
