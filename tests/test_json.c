/* The JSON writer of the records (harness/engine/json.c): what it escapes, how it
 * nests, and that an object too big to fit is refused, not cut. Prints the
 * records it builds, one per line, for a reader to parse (tests/run.d/
 * records.sh checks them with python3), then "N failures". */
#include "json.h"

#include <stdio.h>
#include <string.h>

static unsigned failures;

static void expect_text(const struct mg_json *j, const char *want, const char *what)
{
	if (j->used != strlen(want) || memcmp(j->text, want, j->used) != 0) {
		failures++;
		printf("FAIL: %s: got %.*s want %s", what, (int)j->used, j->text, want);
	}
}

static void escapes(void)
{
	struct mg_json j;

	mg_json_start(&j, "t");
	mg_json_string(&j, "s", "q\"b\\n\nt\tc\x01 d\x7f");
	mg_json_write(&j, stdout);
	expect_text(&j, "{\"record\":\"t\",\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001 d\\u007f\"}\n",
		    "quotes, backslashes, control characters");
}

static void utf8(void)
{
	struct mg_json j;

	mg_json_start(&j, "t");
	/* é and 😀 as they are; a lone 0xff, a truncated é, an overlong '/',
	 * a surrogate and a code point past U+10FFFF each as U+FFFD. */
	mg_json_string(
		&j, "s",
		"caf\xc3\xa9 \xf0\x9f\x98\x80 \xff \xc3 \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80");
	mg_json_write(&j, stdout);
	expect_text(&j,
		    "{\"record\":\"t\",\"s\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\ufffd \\ufffd "
		    "\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\\ufffd\"}\n",
		    "UTF-8 kept, other bytes replaced");
}

static void nesting(void)
{
	struct mg_json j;

	mg_json_start(&j, "t");
	mg_json_null(&j, "n");
	mg_json_string(&j, "z", NULL);
	mg_json_open_array(&j, "a");
	mg_json_string(&j, NULL, "x");
	mg_json_open_object(&j, NULL);
	mg_json_int(&j, "i", -5);
	mg_json_uint(&j, "u", 18446744073709551615ull);
	mg_json_close_object(&j);
	mg_json_bool(&j, NULL, 1);
	mg_json_close_array(&j);
	mg_json_real(&j, "r", 1.5);
	mg_json_write(&j, stdout);
	expect_text(&j,
		    "{\"record\":\"t\",\"n\":null,\"z\":null,\"a\":[\"x\",{\"i\":-5,\"u\":"
		    "18446744073709551615},true],\"r\":1.500}\n",
		    "nulls, arrays, objects, numbers");
}

static void overflow(void)
{
	static char big[MG_JSON_MAX + 16];
	struct mg_json j;

	memset(big, 'a', sizeof big - 1);
	mg_json_start(&j, "t");
	mg_json_string(&j, "s", big);
	if (mg_json_write(&j, stdout)) {
		failures++;
		printf("FAIL: an object too big to fit was written\n");
	}
}

int main(void)
{
	escapes();
	utf8();
	nesting();
	overflow();
	printf("%u failures\n", failures);
	return failures != 0;
}
