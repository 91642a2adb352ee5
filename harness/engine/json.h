/* A small JSON writer for the records (docs/records.md): one object built
 * in memory, then written as one line with one write, so records from
 * processes that share an output never interleave within a line. */
#ifndef MG_JSON_H
#define MG_JSON_H

#include <stddef.h>
#include <stdio.h>

#define MG_JSON_MAX 8192

struct mg_json {
	char text[MG_JSON_MAX];
	size_t used;
	int comma;    /* a value came before: the next one needs a comma */
	int overflow; /* the object did not fit: it is not written */
};

/* Starts an object: {"record": KIND */
void mg_json_start(struct mg_json *j, const char *kind);
/* Members; a NULL string is written as null. */
void mg_json_string(struct mg_json *j, const char *key, const char *value);
void mg_json_int(struct mg_json *j, const char *key, long long value);
void mg_json_uint(struct mg_json *j, const char *key, unsigned long long value);
void mg_json_real(struct mg_json *j, const char *key, double value);
void mg_json_bool(struct mg_json *j, const char *key, int value);
void mg_json_null(struct mg_json *j, const char *key);
/* A nested object or array as a member (key) or, with key NULL, as an
 * element of the enclosing array. */
void mg_json_open_object(struct mg_json *j, const char *key);
void mg_json_close_object(struct mg_json *j);
void mg_json_open_array(struct mg_json *j, const char *key);
void mg_json_close_array(struct mg_json *j);

/* Ends the object and writes it as one line, flushed. Returns 1, or 0
 * (with a message on stderr) if it did not fit or could not be written. */
int mg_json_write(struct mg_json *j, FILE *out);

#endif
